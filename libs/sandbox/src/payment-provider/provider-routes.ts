export type ProviderRoute =
  | { name: 'issue' }
  | { name: 'charge'; billingKey: string }
  | { name: 'paymentByOrder'; orderId: string }
  | { name: 'payment'; paymentKey: string };

/** The provider's API surface this fake serves; `path` is percent-decoded, without the query. */
export function matchRoute(method: string, path: string): ProviderRoute | undefined {
  const segments = path.split('/').slice(1);
  if (method === 'POST' && path === '/v1/billing/authorizations/issue') return { name: 'issue' };
  if (method === 'POST' && segments.length === 3 && segments[0] === 'v1' && segments[1] === 'billing') {
    return segments[2] ? { name: 'charge', billingKey: segments[2] } : undefined;
  }
  if (method !== 'GET' || segments[0] !== 'v1' || segments[1] !== 'payments') return undefined;
  // GET /v1/payments/orders/{orderId} and GET /v1/payments/{paymentKey}
  if (segments.length === 4 && segments[2] === 'orders') {
    return segments[3] ? { name: 'paymentByOrder', orderId: segments[3] } : undefined;
  }
  if (segments.length === 3 && segments[2]) return { name: 'payment', paymentKey: segments[2] };
  return undefined;
}

export type ProviderRoute =
  { name: 'issue' } | { name: 'charge'; billingKey: string } | { name: 'paymentByOrder'; orderId: string };

/** The provider's API surface this fake serves; `path` is percent-decoded, without the query. */
export function matchRoute(method: string, path: string): ProviderRoute | undefined {
  const segments = path.split('/').slice(1);
  if (method === 'POST' && path === '/v1/billing/authorizations/issue') return { name: 'issue' };
  if (method === 'POST' && segments.length === 3 && segments[0] === 'v1' && segments[1] === 'billing') {
    return segments[2] ? { name: 'charge', billingKey: segments[2] } : undefined;
  }
  if (method === 'GET' && segments.length === 4 && path.startsWith('/v1/payments/orders/')) {
    return segments[3] ? { name: 'paymentByOrder', orderId: segments[3] } : undefined;
  }
  return undefined;
}

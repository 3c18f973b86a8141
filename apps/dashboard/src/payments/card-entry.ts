import { loadTossPayments } from '@tosspayments/tosspayments-sdk';

/** What the checkout hands the provider's SDK: all from billing's `prepare`, but the return addresses. */
export interface CardEntry {
  /** `provider_sdk_url`: the provider's CDN, or the sandbox's stand-in. */
  sdkUrl: string;
  /** `provider_client_key`. */
  clientKey: string;
  /** `customer_key`: the payer, as the provider knows them. */
  customerKey: string;
  /** Where the card form sends the browser with `authKey` and `customerKey`. */
  successUrl: string;
  /** Where it sends the browser with `code` and `message` when no card was registered. */
  failUrl: string;
}

/** Why the card form did not open, in the provider's terms. */
export interface CardEntryFailure {
  code: string;
  message: string;
}

/**
 * The provider's card registration (docs/behaviour.md §4.4; docs/billing-in-the-dashboard.md): its
 * SDK, loaded by its own npm loader from `sdkUrl` (only now, on the checkout), then
 * `payment({customerKey}).requestBillingAuth({method: 'CARD', successUrl, failUrl})`. The SDK takes
 * the browser to the card form in this window (`windowTarget: 'self'`: no frame, so the dashboard's
 * Content-Security-Policy needs nothing from the provider but the script), and the form comes back
 * to `successUrl` or `failUrl`. The same call runs against the real provider and the sandbox's
 * stand-in. Resolves when the browser is leaving; rejects with the SDK's error (see `cardEntryFailure`).
 */
export async function openCardEntry(entry: CardEntry): Promise<void> {
  const provider = await loadTossPayments(entry.clientKey, { src: entry.sdkUrl });
  await provider.payment({ customerKey: entry.customerKey }).requestBillingAuth({
    method: 'CARD',
    successUrl: entry.successUrl,
    failUrl: entry.failUrl,
    windowTarget: 'self',
  });
}

/**
 * A rejected `openCardEntry` as the checkout shows it: the SDK's own `code` and `message` (e.g.
 * `USER_CANCEL`, `INVALID_CUSTOMER_KEY`), or the loader's failure to fetch the script.
 */
export function cardEntryFailure(error: unknown): CardEntryFailure {
  const fields = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const message = typeof fields.message === 'string' ? fields.message : '';
  if (typeof fields.code === 'string' && fields.code) return { code: fields.code, message };
  if (fields.name === 'ScriptLoadFailedError' || fields.name === 'NamespaceNotAvailableError') {
    return {
      code: 'SDK_UNAVAILABLE',
      message: 'The payment provider’s card form could not be loaded. Check the connection and try again.',
    };
  }
  return { code: 'UNKNOWN_ERROR', message: message || 'The card form could not be opened.' };
}

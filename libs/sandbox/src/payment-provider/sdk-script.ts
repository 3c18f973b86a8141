/**
 * Where the fake serves its stand-in for the provider's JS SDK on its own port: the path of the
 * real one on the provider's CDN (`https://js.tosspayments.com/v2/standard`). The card page is
 * beside it, at `CARD_WIDGET_PATH`, wherever the two are mounted.
 */
export const SDK_SCRIPT_PATH = '/v2/standard';

/**
 * The provider's JS SDK as the sandbox plays it: a classic script that defines
 * `window.TossPayments(clientKey)`, the global the provider's npm loader (`loadTossPayments(clientKey,
 * {src})`) waits for, with the surface of the real one that a billing-auth checkout uses:
 * `payment({customerKey}).requestBillingAuth({method: 'CARD', successUrl, failUrl, ...})`. It sends
 * the browser to the sandbox's card page (`cardPagePath`, resolved against the script's own
 * address) with `clientKey`, `customerKey`, `successUrl` and `failUrl`, as the real widget does in
 * its `windowTarget: 'self'` mode; the page then redirects back. Bad arguments are refused as the
 * real SDK refuses them: an Error with the provider's `code` (thrown by `TossPayments()` and
 * `payment()`, a rejected promise from `requestBillingAuth`). Everything else the real SDK offers
 * (payments, widgets, brandpay) is refused with `NOT_SUPPORTED_METHOD`: the sandbox registers cards only.
 */
export function sdkScript(cardPagePath: string): string {
  return `/* Sandbox payment provider: a stand-in for the provider's JS SDK (card registration only). */
(function () {
  'use strict';
  var CARD_PAGE_PATH = ${JSON.stringify(cardPagePath)};
  var current = document.currentScript;
  var scriptUrl = current && current.src ? current.src : window.location.href;
  var CUSTOMER_KEY = /^[A-Za-z0-9_=.@-]{2,50}$/;

  function sdkError(code, message) {
    var error = new Error(message);
    error.name = 'TossPaymentsError';
    error.code = code;
    return error;
  }

  function absoluteHttpUrl(value) {
    if (typeof value !== 'string') return null;
    try {
      var url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
    } catch (ignored) {
      return null;
    }
  }

  function optionalText(request, name, max) {
    var value = request[name];
    return value === undefined || value === null || (typeof value === 'string' && value.length <= max);
  }

  function requestBillingAuth(clientKey, customerKey, request) {
    return new Promise(function (resolve, reject) {
      if (!request || typeof request !== 'object') {
        return reject(sdkError('INVALID_PARAMETERS', 'requestBillingAuth needs the billing-auth request.'));
      }
      if (request.method !== 'CARD') {
        return reject(sdkError('NOT_SUPPORTED_METHOD', 'The sandbox registers cards only (method: CARD).'));
      }
      var successUrl = absoluteHttpUrl(request.successUrl);
      if (!successUrl) {
        return reject(sdkError('INCORRECT_SUCCESS_URL_FORMAT', 'successUrl must be an absolute http(s) URL.'));
      }
      var failUrl = absoluteHttpUrl(request.failUrl);
      if (!failUrl) {
        return reject(sdkError('INCORRECT_FAIL_URL_FORMAT', 'failUrl must be an absolute http(s) URL.'));
      }
      if (!optionalText(request, 'customerName', 100) || !optionalText(request, 'customerEmail', 100)) {
        return reject(sdkError('INVALID_PARAMETERS', 'customerName and customerEmail are at most 100 characters.'));
      }
      var windowTarget = request.windowTarget;
      if (windowTarget !== undefined && windowTarget !== null && windowTarget !== 'self' && windowTarget !== 'iframe') {
        return reject(sdkError('INVALID_PARAMETERS', "windowTarget is 'self' or 'iframe'."));
      }
      var page = new URL(CARD_PAGE_PATH, scriptUrl);
      page.searchParams.set('clientKey', clientKey);
      page.searchParams.set('customerKey', customerKey);
      page.searchParams.set('successUrl', successUrl.toString());
      page.searchParams.set('failUrl', failUrl.toString());
      // The page is leaving: like the real SDK, the promise never settles on success.
      window.location.assign(page.toString());
    });
  }

  function refused() {
    throw sdkError('NOT_SUPPORTED_METHOD', 'The sandbox provider registers cards only (payment().requestBillingAuth).');
  }

  function TossPayments(clientKey) {
    if (typeof clientKey !== 'string' || clientKey.length === 0) {
      throw sdkError('INVALID_CLIENT_KEY', 'TossPayments needs the client key.');
    }
    if (/^(test_|live_)?sk_/.test(clientKey)) {
      throw sdkError('INSECURE_KEY_USAGE', 'That is a secret key: give the client key.');
    }
    return {
      payment: function (params) {
        var customerKey = params && params.customerKey;
        if (typeof customerKey !== 'string' || !CUSTOMER_KEY.test(customerKey)) {
          throw sdkError('INVALID_CUSTOMER_KEY', 'customerKey must be 2 to 50 of A-Z a-z 0-9 - _ = . @');
        }
        return {
          requestBillingAuth: function (request) {
            return requestBillingAuth(clientKey, customerKey, request);
          },
          requestPayment: function () {
            return Promise.reject(sdkError('NOT_SUPPORTED_METHOD', 'The sandbox provider registers cards only.'));
          },
          destroy: function () {
            return Promise.resolve();
          },
        };
      },
      widgets: refused,
      brandpay: refused,
    };
  }
  TossPayments.ANONYMOUS = '@@ANONYMOUS';
  window.TossPayments = TossPayments;
})();
`;
}

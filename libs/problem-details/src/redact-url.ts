/**
 * Query parameters that carry a credential (compared lower-cased): the OAuth authorization code
 * and its state, and the payment provider's one-time `authKey`, which its card form appends to the
 * checkout's return address and which issues a billing key for the payer's card. The return
 * address's `customerKey` stays: it names the payer (`user_<id>`, as log lines do) and proves nothing.
 */
const SECRET_QUERY_PARAMETERS = new Set(['code', 'state', 'authkey']);

/**
 * The URL with the values of credential-bearing query parameters replaced, for anything that is
 * logged or echoed (request logs, a problem's `instance`): an OAuth code in a log line is a login
 * for whoever reads the logs within its lifetime.
 */
export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
  const parameters = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const name = pair.split('=', 1)[0];
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A malformed name is kept as it came; it names no secret parameter either way.
      }
      return SECRET_QUERY_PARAMETERS.has(decoded.toLowerCase()) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, query)}?${parameters.join('&')}`;
}

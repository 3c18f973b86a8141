import { contractFor, type RouteContract } from './discord-schemas';
import type { Exchange } from './recording-proxy';
import { checkAgainst } from './schema-check';

/** An exchange the platform answered 2xx. */
export const succeeded = (exchange: Exchange) => exchange.status >= 200 && exchange.status <= 299;

/**
 * The two tests every route suite makes of what its recording proxy saw: it called only the routes
 * of `checked`, each of them at least once with success; and each successful exchange's request and
 * answer match the route's schemas (loosely and strictly), a route without an answer schema
 * answering 204 without a body. `requestBody` prepares a body for its schema (bitfields as numbers).
 */
export function itChecksEveryRoute(
  checked: readonly RouteContract[],
  exchanges: () => readonly Exchange[],
  requestBody: (body: unknown) => unknown = (body) => body,
): void {
  const contractOf = (exchange: Exchange) => contractFor(exchange.method, exchange.path, [...checked]);

  it('calls only the listed routes, and every one of them', () => {
    const unknown = exchanges().filter((exchange) => !contractOf(exchange));
    expect(unknown.map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    const unused = checked.filter(
      (contract) => !exchanges().some((exchange) => succeeded(exchange) && contractOf(exchange) === contract),
    );
    expect(unused.map(({ method, path }) => `${method} ${path}`)).toEqual([]);
  });

  it.each(checked.map((contract) => [`${contract.method} ${contract.path}`, contract] as const))(
    '%s: request and answer match the schema',
    (_name, contract) => {
      const mismatches: string[] = [];
      for (const exchange of exchanges().filter((e) => succeeded(e) && contractOf(e) === contract)) {
        const at = `${exchange.method} ${exchange.path} (${exchange.status})`;
        if (contract.request) {
          const { loose, strict } = checkAgainst(contract.request, requestBody(exchange.requestBody));
          mismatches.push(...[...new Set([...loose, ...strict])].map((line) => `${at} request ${line}`));
        } else if (exchange.requestBody !== undefined) {
          mismatches.push(`${at}: a request body Discord takes none for`);
        }
        if (contract.response) {
          const { loose, strict } = checkAgainst(contract.response, exchange.responseBody);
          mismatches.push(...[...new Set([...loose, ...strict])].map((line) => `${at} answer ${line}`));
        } else if (exchange.status !== 204 || exchange.responseBody !== undefined) {
          mismatches.push(`${at}: Discord answers 204 without a body`);
        }
      }
      expect(mismatches).toEqual([]);
    },
  );
}

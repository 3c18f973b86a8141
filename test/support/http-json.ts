/** A JSON object, as a spec reads an answer. */
export type Json = Record<string, unknown>;

/** An answer's status and JSON body ({} when it has none). */
export interface JsonReply {
  status: number;
  body: Json;
}

export async function readJson(response: Response): Promise<JsonReply> {
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Json) : {} };
}

/**
 * A request as a plain HTTP client sends it: `body`, when there is one, as JSON with its content
 * type (a string goes as it is, for a spec that sends what is not JSON).
 */
export async function sendJson(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonReply> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return readJson(response);
}

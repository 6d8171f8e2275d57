/** An answer of the sandbox to a page's request: its status and its JSON body (null when empty or not JSON). */
export interface JsonAnswer {
  status: number;
  data: unknown;
}

/**
 * Sends a page's request with a JSON body (if any) and `headers`, never from the cache; resolves
 * to null when the sandbox did not answer at all (the caller says what that means to its reader).
 */
export async function sendJson(
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<JsonAnswer | null> {
  const sent: Record<string, string> = { ...headers, Accept: 'application/json' };
  const init: RequestInit = { method, headers: sent, cache: 'no-store' };
  if (body !== undefined) {
    sent['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    return null;
  }
  const text = await res.text();
  try {
    return { status: res.status, data: text === '' ? null : (JSON.parse(text) as unknown) };
  } catch {
    return { status: res.status, data: null };
  }
}

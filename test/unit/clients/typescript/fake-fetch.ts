/** A fake `fetch` answering from a script of responses, recording each URL and header asked for. */
export function scriptedFetch(script: (Response | Error)[]) {
  const calls: { url: string; headers: Record<string, string> }[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    calls.push({ url: String(input), headers });
    const next = script.shift();
    if (next === undefined) throw new Error('no more scripted responses');
    if (next instanceof Error) throw next;
    return next;
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

export const envelope = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(status, { error: { code, message: code.replaceAll('_', ' ') } }, headers);

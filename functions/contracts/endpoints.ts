/**
 * Which provider endpoints the credentials may be sent to (docs/data-sources.md#endpoints-and-credentials):
 * `wss:` for a stream, `https:` for REST; the clear-text `ws:` / `http:` only to a loopback address (a local
 * fake). One rule for the connector's start (functions/containers/feed-connector/settings.ts) and for `cdk synth`'s
 * `-c feedUrl` (lib/market-data-stack.ts).
 */

const LOOPBACK_HOSTS = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Why `url` may not carry the credentials (to follow the setting's name), or undefined when it may. */
export function insecureEndpoint(url: string, secure: 'wss:' | 'https:'): string | undefined {
  const clear = secure === 'wss:' ? 'ws:' : 'http:';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `is not a URL: ${url}`;
  }
  if (parsed.protocol === secure) return undefined;
  if (parsed.protocol === clear && LOOPBACK_HOSTS.test(parsed.hostname)) return undefined;
  return `must be a ${secure}// URL (${clear}// only to a loopback address): ${parsed.protocol}//${parsed.host} would carry the credentials ${parsed.protocol === clear ? 'in clear text' : 'over another protocol'}`;
}

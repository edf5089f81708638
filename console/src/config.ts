/**
 * Where the console finds the service: `config.json` beside the page. The local stack serves it with the
 * demo key's path; on AWS the CDK writes it with the WebSocket URL (docs/console.md#configuration).
 */
export interface ConsoleConfig {
  /** The REST base, absolute or relative to the page's origin. */
  readonly restBaseUrl: string;
  /** The WebSocket URL; absent: the page's origin with ws(s): and /ws/market/v1. */
  readonly wsUrl?: string;
  /** Where the local stack offers its demo key (loopback only); absent on AWS. */
  readonly demoKeyUrl?: string;
}

export async function loadConfig(): Promise<ConsoleConfig> {
  const response = await fetch(new URL('config.json', document.baseURI));
  if (!response.ok) throw new Error(`config.json: HTTP ${response.status}`);
  const config = (await response.json()) as ConsoleConfig;
  const restBaseUrl = new URL(config.restBaseUrl, window.location.origin).href;
  const origin = new URL(restBaseUrl);
  const wsUrl =
    config.wsUrl ?? `${origin.protocol === 'https:' ? 'wss:' : 'ws:'}//${origin.host}/ws/market/v1`;
  return { ...config, restBaseUrl, wsUrl };
}

/** The local demo key, when the stack offers one to this machine. */
export async function fetchDemoKey(config: ConsoleConfig): Promise<string | undefined> {
  if (!config.demoKeyUrl) return undefined;
  try {
    const response = await fetch(new URL(config.demoKeyUrl, window.location.origin));
    if (!response.ok) return undefined;
    return ((await response.json()) as { key?: string }).key;
  } catch {
    return undefined;
  }
}

import { readFileSync } from 'node:fs';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { parse } from 'csv-parse/sync';
import { insecureEndpoint } from '#contracts/endpoints';
import {
  FEED_CREDENTIAL_NAMES,
  FEED_ENV,
  type FeedEnvironment,
  type FeedProvider,
  feedEnvironmentSchema,
} from '#contracts/feed';

/** A setting the connector cannot start without, or a bad one: told plainly, never with a stack. */
export class FeedSettingsError extends Error {}

/** The connector's environment, checked (functions/contracts/feed.ts). */
export function feedEnvironment(env: NodeJS.ProcessEnv = process.env): FeedEnvironment {
  const parsed = feedEnvironmentSchema.safeParse(env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new FeedSettingsError(`bad feed configuration: ${issues.join('; ')}`);
  }
  const url = parsed.data[FEED_ENV.url];
  if (url !== undefined) secureEndpoint(FEED_ENV.url, url, 'wss:');
  return parsed.data;
}

/**
 * A provider endpoint the credentials may be sent to (functions/contracts/endpoints.ts): anything else is
 * refused with one line naming the setting.
 */
export function secureEndpoint(name: string, url: string, secure: 'wss:' | 'https:'): string {
  const problem = insecureEndpoint(url, secure);
  if (problem !== undefined) throw new FeedSettingsError(`${name} ${problem}`);
  return url;
}

/**
 * The provider's credentials: from the Secrets Manager secret when `secretArn` is given (its JSON holds the
 * names of FEED_CREDENTIAL_NAMES), else from the environment. Never logged.
 */
export async function feedCredentials(
  provider: FeedProvider,
  secretArn: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Record<string, string>> {
  let source: Record<string, unknown> = env;
  let where = 'the environment';
  if (secretArn !== undefined) {
    const { SecretString } = await new SecretsManagerClient({}).send(
      new GetSecretValueCommand({ SecretId: secretArn }),
    );
    where = `the secret ${FEED_ENV.secretArn} names`;
    try {
      source = JSON.parse(SecretString ?? '{}') as Record<string, unknown>;
    } catch {
      throw new FeedSettingsError(`${where} does not hold JSON`);
    }
  }
  const names = FEED_CREDENTIAL_NAMES[provider];
  const missing = names.filter((name) => typeof source[name] !== 'string' || source[name] === '');
  if (missing.length > 0) throw new FeedSettingsError(`${missing.join(' and ')} missing from ${where}`);
  return Object.fromEntries(names.map((name) => [name, source[name] as string]));
}

/** The universe's symbols (data/universe.csv, from the working directory), or FEED_SYMBOLS when set. */
export function feedSymbols(symbols: string | undefined, universeFile = 'data/universe.csv'): string[] {
  if (symbols !== undefined)
    return symbols
      .split(',')
      .map((symbol) => symbol.trim().toUpperCase())
      .filter(Boolean);
  let text: string;
  try {
    text = readFileSync(universeFile, 'utf8');
  } catch {
    throw new FeedSettingsError(`cannot read the universe (${universeFile}): set ${FEED_ENV.symbols}`);
  }
  const rows = parse(text, { columns: true, skip_empty_lines: true }) as { symbol: string }[];
  return rows.map((row) => row.symbol);
}

/**
 * The symbols the LULD band treats as Tier 1 (docs/data-sources.md#erroneous-prints-the-luld-band): every
 * symbol of the universe file, whose stocks are S&P 500 constituents and whose ETPs are broad index funds,
 * all Tier 1 under the Plan. A symbol fed from outside it (FEED_SYMBOLS, `--symbols`) is Tier 2, the wider
 * band. An unreadable file leaves every symbol Tier 2.
 */
export function luldTier1Symbols(universeFile = 'data/universe.csv'): Set<string> {
  let text: string;
  try {
    text = readFileSync(universeFile, 'utf8');
  } catch {
    return new Set();
  }
  const rows = parse(text, { columns: true, skip_empty_lines: true }) as { symbol: string }[];
  return new Set(rows.map((row) => row.symbol));
}

import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeProvider } from '../support/fake-providers.ts';
import { spawnScript, waitForOutput } from '../support/processes.ts';

/** The connector's process entry as the container runs it: configured by the contract's environment alone. */
const ENTRY = 'functions/containers/feed-connector.ts';
const NOT_A_LAMBDA = { AWS_LAMBDA_MAX_CONCURRENCY: undefined, POWERTOOLS_LOG_LEVEL: 'INFO' };

let fake: FakeProvider | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('functions/containers/feed-connector.ts', () => {
  it('subscribes from the environment and exits 0 on SIGTERM', async () => {
    fake = await FakeProvider.start('alpaca', { key: 'key-id', secret: 'secret' });
    const child = spawnScript(ENTRY, [], {
      ...NOT_A_LAMBDA,
      FEED_PROVIDER: 'alpaca',
      FEED_URL: fake.url(),
      FEED_SYMBOLS: 'AAPL,MSFT',
      TRADES_STREAM_NAME: 'trades',
      AWS_REGION: 'us-east-1',
      APCA_API_KEY_ID: 'key-id',
      APCA_API_SECRET_KEY: 'secret',
    });
    const output = await waitForOutput(child, /Feed subscribed/);
    expect(fake.subscriptions).toEqual([['AAPL', 'MSFT']]);
    expect(output).not.toContain('secret');
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  }, 60_000);

  it('exits 1 with one line naming what is missing, without a stack trace', async () => {
    const child = spawnScript(ENTRY, [], {
      ...NOT_A_LAMBDA,
      FEED_PROVIDER: 'polygon',
      TRADES_STREAM_NAME: 'trades',
      POLYGON_API_KEY: undefined,
    });
    let output = '';
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on('data', (chunk) => {
        output += chunk;
      });
    }
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(output).toContain('POLYGON_API_KEY missing from the environment');
    expect(output).not.toMatch(/\n\s+at /);
  }, 60_000);
});

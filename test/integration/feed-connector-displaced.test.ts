import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { FakeProvider } from '../support/fake-providers.ts';
import { spawnScript } from '../support/processes.ts';

/**
 * The connector's process against a fake Massive cluster that enforces one connection per key as Massive
 * does (the newer connection takes it; the older gets `max_connections`, then a close), with another client
 * taking the key each time the connector subscribes: the process stops after 5 displacements with one line
 * and exit code 1 (docs/data-sources.md#two-connectors-on-one-key).
 */
const ENTRY = 'functions/containers/feed-connector.ts';

let fake: FakeProvider | undefined;
const intruders: WebSocket[] = [];
afterEach(async () => {
  for (const socket of intruders.splice(0)) socket.terminate();
  await fake?.close();
  fake = undefined;
});

/** Another client on the same key: connects and authenticates, which displaces the connector. */
async function intrude(url: string): Promise<void> {
  const socket = new WebSocket(url);
  intruders.push(socket);
  await once(socket, 'open');
  socket.send(JSON.stringify({ action: 'auth', params: 'key' }));
}

describe('two connections on one key', () => {
  it('the connector stops after 5 displacements with one line and exit code 1', async () => {
    fake = await FakeProvider.start('polygon', { key: 'key' });
    const child = spawnScript(ENTRY, [], {
      AWS_LAMBDA_MAX_CONCURRENCY: undefined,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      FEED_PROVIDER: 'polygon',
      FEED_URL: fake.url(''),
      FEED_SYMBOLS: 'AAPL',
      TRADES_STREAM_NAME: 'trades',
      AWS_REGION: 'us-east-1',
      POLYGON_API_KEY: 'key',
    });
    let output = '';
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on('data', (chunk) => {
        output += chunk;
      });
    }
    const exited = once(child, 'exit');
    let done = false;
    void exited.then(() => {
      done = true;
    });
    for (let subscription = 1; !done && subscription <= 6; subscription++) {
      await Promise.race([fake.subscribed(subscription), exited]);
      if (!done) await intrude(fake.url('/stocks'));
    }
    const [code] = await exited;
    expect(code).toBe(1);
    const failures = output.split('\n').filter((line) => line.includes('Feed connector failed'));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/another connection on the same key took the feed 5 times in 10 minutes/);
    expect(output).not.toMatch(/\n\s+at /);
    expect(fake.subscriptions).toHaveLength(5);
  }, 90_000);
});

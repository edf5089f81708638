import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { localDocumentClient } from '../../scripts/local/dynamo.ts';
import { localTableName } from '../../scripts/local/tables.ts';
import { alpacaTrade, FakeProvider } from '../support/fake-providers.ts';
import { startTestStack, type TestStack } from '../support/local-stack.ts';
import { spawnScript, waitForOutput } from '../support/processes.ts';

/**
 * `npm run feed` keeps its position in the local stack's DynamoDB (the feedPositions table), and a feed
 * killed without a graceful stop finds it when started again (docs/data-sources.md#a-restart-loses-nothing).
 * What the restart fills is covered against the same fakes in test/unit/use-cases/feed-connector-fakes.test.ts.
 */
let local: TestStack;
let fake: FakeProvider;
const children: ChildProcess[] = [];

beforeAll(async () => {
  local = await startTestStack();
  fake = await FakeProvider.start('alpaca', { key: 'key-id', secret: 'secret' });
}, 90_000);

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      await once(child, 'exit');
    }
  }
  await fake.close();
  await local.stop();
});

function feed(): ChildProcess {
  const child = spawnScript(
    'scripts/feed.ts',
    [
      ...['--provider', 'alpaca', '--url', fake.url(), '--rest-url', fake.restUrl, '--symbols', 'AAPL'],
      ...['--local-url', local.stack.restUrl, '--endpoint', local.stack.dynamoEndpoint],
    ],
    { APCA_API_KEY_ID: 'key-id', APCA_API_SECRET_KEY: 'secret', AWS_LAMBDA_MAX_CONCURRENCY: undefined },
  );
  children.push(child);
  return child;
}

describe('npm run feed keeps its position in the local stack', () => {
  it('writes the time through which trades were put, and a restart after SIGKILL starts from it', async () => {
    const first = feed();
    await waitForOutput(first, /Feed subscribed/);
    const base = Date.now() - 60_000;
    fake.publish([1, 2, 3].map((n) => alpacaTrade('AAPL', n, base + n * 1_000, 100 + n)));
    const documents = localDocumentClient(local.stack.dynamoEndpoint);
    await vi.waitFor(
      async () => {
        const { Item } = await documents.send(
          new GetCommand({ TableName: localTableName('feedPositions'), Key: { feed: 'alpaca' } }),
        );
        expect(Item?.throughMs).toBe(base + 3_000);
      },
      { timeout: 20_000, interval: 250 },
    );
    first.kill('SIGKILL');
    await once(first, 'exit');

    const second = feed();
    const output = await waitForOutput(second, /Feed subscribed/);
    expect(output).toContain('Feed position found');
    expect(output).toContain(new Date(base + 3_000).toISOString());
    second.kill('SIGINT');
    const [code] = await once(second, 'exit');
    expect(code).toBe(0);
  }, 90_000);
});

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { DynamoFeedPositionStore } from '#adapters/dynamo/feed-position-store';
import { KinesisTradeSink } from '#adapters/kinesis/trade-sink';
import { STACK_OUTPUTS, tableOutputName } from '#contracts/stack-outputs';
import type { FeedPositionStore } from '#domain/feed/ports';
import type { TradeSink } from '#domain/market-data/ports';
import { localDocumentClient, localDynamoClient } from '../local/dynamo.ts';
import { ensureTables, localTableName } from '../local/tables.ts';
import { UsageError } from './cli.ts';
import { LocalTradeSink } from './local-trade-sink.ts';
import { runningLocalStack, stackOutputs } from './target.ts';

/** A local stack's origin: `url`, or the running one's (from its state file under `dataDir`). */
export async function localOrigin(url: string | undefined, dataDir: string): Promise<string> {
  const restUrl = url ?? (await runningLocalStack(dataDir))?.restUrl;
  if (!restUrl) {
    throw new UsageError('no running local stack found (start one with npm start, or pass --url or --stack)');
  }
  return new URL(restUrl).origin;
}

/** The deployed stack's trades stream, found by its output. */
export async function kinesisSink(stack: string, region?: string): Promise<TradeSink> {
  const output = await stackOutputs(stack, region);
  return new KinesisTradeSink(new KinesisClient({ region }), output(STACK_OUTPUTS.tradeStreamName));
}

/** Where trades go: a deployed stack's stream (`stack`), else the running local stack (`url` or its state). */
export async function tradeSinkFor(options: {
  stack?: string;
  region?: string;
  url?: string;
  dataDir: string;
}): Promise<TradeSink> {
  return options.stack
    ? kinesisSink(options.stack, options.region)
    : new LocalTradeSink(await localOrigin(options.url, options.dataDir));
}

/**
 * Where `npm run feed` keeps each feed's position (docs/data-sources.md#a-restart-loses-nothing): the
 * deployed stack's table (`stack`), else the local stack's DynamoDB (`endpoint`, or the running one's, from
 * its state file under `dataDir`, unless `url` names another stack; a table missing from a stack started
 * before it existed is created). Undefined when no local DynamoDB is known: the feed runs without a position.
 */
export async function feedPositionsFor(options: {
  stack?: string;
  region?: string;
  endpoint?: string;
  url?: string;
  dataDir: string;
}): Promise<FeedPositionStore | undefined> {
  if (options.stack) {
    const output = await stackOutputs(options.stack, options.region);
    return new DynamoFeedPositionStore(
      documentClientFor(new DynamoDBClient({ region: options.region })),
      output(tableOutputName('feedPositions')),
    );
  }
  const endpoint =
    options.endpoint ??
    (options.url === undefined ? (await runningLocalStack(options.dataDir))?.dynamoEndpoint : undefined);
  if (!endpoint) return undefined;
  await ensureTables(localDynamoClient(endpoint));
  return new DynamoFeedPositionStore(localDocumentClient(endpoint), localTableName('feedPositions'));
}

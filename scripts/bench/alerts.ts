/**
 * `npm run bench -- alerts [--root DIR] [--alerts N]`: a burst of in-force alerts from one batch (the close of
 * a session's first 15-minute bar at market scale) appended to the local stack's feed in one `append`, as the
 * ingest does (docs/adr/0009-alert-ids-in-commit-order.md): the time until the last is readable at
 * GET /alerts/in-force, and the write units each alert costs, on the table and on its indexes, counted on
 * the client (write-units.ts). `--root` runs another checkout's adapter (main's, for a before/after on one
 * machine). The per-alert figures go to scripts/cost/measured-units.json, which `npm run cost` reads. Then a
 * week of one symbol replayed at full speed: how long after its last candle its last alert is readable
 * (alert-replay.ts).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { batchPutAll } from '#adapters/dynamo/batch';
import { TABLES } from '#contracts/tables';
import { IN_FORCE_FEED, type InForceAlertBody, inForceFeedEvent } from '#domain/strat/alerts';
import type { EventFeed } from '#domain/strat/ports';
import { usageLine } from '#domain/streaming/usage-records';
import { PROJECT_ROOT } from '#lib/project-root';
import { localDocumentClient } from '../local/dynamo.ts';
import { localTableName } from '../local/tables.ts';
import { benchAlertReplay, inForceAlertReadable } from './alert-replay.ts';
import { startBenchStack } from './bench-stack.ts';
import { printWhenMain, until } from './harness.ts';
import { recordMeasuredUnits } from './measured-units.ts';
import type { BenchResult } from './types.ts';
import { countingWrites } from './write-units.ts';

const CLOCK_START_MS = Date.parse('2024-11-22T16:00:00Z');
const ALERTS_TABLE = localTableName('alerts');

/**
 * How many indexes hold a copy of a feed item: those whose keys it has (byTime only a block's first item,
 * bySymbol a future's alert).
 */
function indexesOf(table: string, item: Record<string, unknown>): number {
  if (table !== ALERTS_TABLE) return 0;
  return TABLES.alerts.indexes.filter(
    (index) => item[index.partitionKey.name] !== undefined && item[index.sortKey.name] !== undefined,
  ).length;
}

/**
 * What one pushed event costs besides its frame: the usage row the fan-out sends for it, with an account, key
 * id, channel and symbol as long as the service's: its NDJSON line's bytes (what Firehose ingests and S3
 * keeps, functions/domain/streaming/usage-records.ts), and the write units the same row cost as a DynamoDB
 * item where it was kept before (for `npm run cost`'s comparison). The fan-out posts one frame per
 * connection and event (functions/use-cases/fan-out.ts).
 */
async function pushUnits(dynamoEndpoint: string) {
  const rows = Array.from({ length: 100 }, (_, index) => ({
    accountId: 'acct_7f3c2a91d4e6',
    keyId: 'key_5b8e0c4f1a2d',
    channel: 'quotes' as const,
    symbol: 'AAPL',
    time: new Date(CLOCK_START_MS + index).toISOString(),
    messageId: `${new Date(CLOCK_START_MS + index).toISOString()}#${'e'.repeat(32)}${index}`,
  }));
  const { client, count } = countingWrites(localDocumentClient(dynamoEndpoint), () => 0);
  const items = rows.map((row) => ({ ...row, type: 'ws_message', expiresAt: 1_800_000_000 }));
  await batchPutAll(client, localTableName('usage'), items);
  return {
    writeUnitsPerUsageRow: count.units / rows.length,
    usageRowBytes: Math.round(
      rows.reduce((sum, row) => sum + Buffer.byteLength(usageLine(row)), 0) / rows.length,
    ),
    framesPerEvent: 1,
    source: 'npm run bench -- alerts (100 usage rows: NDJSON lines, and as DynamoDB items)',
  };
}

type FeedClass = new (
  ...args: ConstructorParameters<typeof import('#adapters/dynamo/event-feed').DynamoEventFeed>
) => EventFeed<InForceAlertBody>;

export async function benchAlerts(options: readonly string[]): Promise<BenchResult[]> {
  const { values } = parseArgs({
    args: [...options],
    options: { root: { type: 'string' }, alerts: { type: 'string' } },
    strict: false,
  });
  const root = typeof values.root === 'string' ? values.root : PROJECT_ROOT;
  const count = Number(typeof values.alerts === 'string' ? values.alerts : 5_000);
  const { DynamoEventFeed } = (await import(
    pathToFileURL(join(root, 'functions/adapters/dynamo/event-feed.ts')).href
  )) as { DynamoEventFeed: FeedClass };
  const stack = await startBenchStack(new Date(CLOCK_START_MS));
  let burst: BenchResult;
  try {
    const { client, count: writes } = countingWrites(localDocumentClient(stack.dynamoEndpoint), indexesOf);
    const feed = new DynamoEventFeed(
      client,
      { feed: ALERTS_TABLE, guards: localTableName('eventGuards') },
      IN_FORCE_FEED,
    );
    // Distinct symbols, each with a bullish 15-minute alert at the same instant, as at a bar's close.
    const triggeredAt = CLOCK_START_MS - 60_000;
    const events = Array.from({ length: count }, (_, index) =>
      inForceFeedEvent({
        symbol: `S${String(index).padStart(4, '0')}`,
        timeframe: '15',
        direction: 'bullish',
        shape: '1-2U',
        price: 100 + index / 100,
        triggeredAt,
        cc: '2U',
        periodTime: Math.floor(triggeredAt / 900_000) * 900,
      }),
    );
    // As the ingest does: the feed's head read before the commit that fired them (ADR 0009).
    const madeAfterId = await feed.head();
    const marked = events.map((event) => ({ ...event, madeAfterId }));
    const started = performance.now();
    let appendedMs = Number.NaN;
    const appending = feed.append(marked).then((appended) => {
      appendedMs = performance.now() - started;
      if (appended !== count) throw new Error(`alerts: appended ${appended} of ${count}`);
    });
    await until(() => inForceAlertReadable(stack, count), `alerts: id ${count}`, 600, 5);
    const readableMs = performance.now() - started;
    await appending;
    const perAlert = (value: number) => Number((value / count).toFixed(2));
    const figures = {
      adapter: root === PROJECT_ROOT ? 'this checkout' : root,
      alerts: count,
      'append s': Number((appendedMs / 1000).toFixed(2)),
      'last alert readable over REST s': Number((readableMs / 1000).toFixed(2)),
      'write requests per alert': perAlert(writes.requests),
      'write units per alert, tables': perAlert(writes.units),
      'write units per alert, index copies': perAlert(writes.indexUnits),
      'write units per alert, in all': perAlert(writes.units + writes.indexUnits),
    };
    if (root === PROJECT_ROOT) {
      await recordMeasuredUnits('alerts', {
        writeUnitsPerAlert: perAlert(writes.units + writes.indexUnits),
        source: `npm run bench -- alerts (${count} alerts in one append)`,
      });
      await recordMeasuredUnits('push', await pushUnits(stack.dynamoEndpoint));
    }
    burst = { name: `A burst of ${count} in-force alerts from one batch, local stack`, figures };
  } finally {
    await stack.stop();
  }
  return [burst, await benchAlertReplay()];
}

await printWhenMain(import.meta.url, benchAlerts);

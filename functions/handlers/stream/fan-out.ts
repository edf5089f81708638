import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { sourceChangeOf, tableNameOf } from '#adapters/dynamo/stream-records';
import { POST_CONCURRENCY } from '#contracts/websocket';
import type { Instrument } from '#domain/market-data/instruments';
import type { PriceStore } from '#domain/market-data/ports';
import type { SymbolPrice } from '#domain/market-data/prices';
import {
  type ChangeContext,
  type ChannelEvent,
  channelEventOf,
  type SourceChange,
} from '#domain/streaming/channel-events';
import { nowMs } from '#runtime/clock';
import { instrumented } from '#runtime/lambda-handler';
import { logger } from '#runtime/logger';
import { recordMetric, recordPushCounts } from '#runtime/metrics';
import { credentialsLookup } from '#runtime/ports/access';
import { clientConnections } from '#runtime/ports/client-connections';
import { priceStore, universe } from '#runtime/ports/market-data';
import type { ServicePorts } from '#runtime/ports/service-ports';
import { awsStreamingPorts, type StreamingPorts } from '#runtime/ports/streaming';
import { usageSink } from '#runtime/ports/usage-sink';
import { type FanOutPorts, fanOut, type SubscriberLookups, symbolsFollowed } from '#use-cases/fan-out';

export interface FanOutDeps {
  readonly ports: () => Omit<FanOutPorts, 'concurrency'>;
  readonly universe: () => Promise<ReadonlyMap<string, Instrument>>;
  readonly prices: () => PriceStore;
  /** Physical table name → source table, for the tables whose streams feed the fan-out. */
  readonly sources: () => ReadonlyMap<string, SourceChange['table']>;
  /** The service clock, for the push lag from a change's commit time (the stream's). */
  readonly nowMs: () => number;
}

/**
 * The fan-out Lambda (docs/architecture.md#fan-out-dynamodb-streams-to-the-connections): one DynamoDB Streams
 * batch of the states, alerts or breaks table, pushed to the subscribed connections (quotes are the ingest's,
 * docs/adr/0024-quotes-posted-by-the-ingest.md). A
 * record whose pushes or usage rows failed is reported as a batch item failure (with every later record of its
 * symbols): Lambda delivers it again, and its usage rows, keyed by the stream's event id, are written again
 * and counted once by the usage report (docs/storage.md#usage-rows).
 */
export const createHandler =
  (deps: FanOutDeps) =>
  async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const startedMs = deps.nowMs();
    const sources = deps.sources();
    const changes: { change: SourceChange; sequenceNumber: string }[] = [];
    for (const record of event.Records) {
      const table = sources.get(tableNameOf(record) ?? '');
      const change = table && sourceChangeOf(record, table);
      const sequenceNumber = record.dynamodb?.SequenceNumber;
      if (change && sequenceNumber) changes.push({ change, sequenceNumber });
    }

    const ports = deps.ports();
    const lookups: SubscriberLookups = new Map();
    const context = await changeContext(
      changes.map(({ change }) => change),
      deps,
      (symbols) => symbolsFollowed('states', symbols, ports.subscriptions, lookups),
    );
    const events: ChannelEvent[] = [];
    const sequenceNumbers: string[] = [];
    for (const { change, sequenceNumber } of changes) {
      const channelEvent = channelEventOf(change, context);
      if (!channelEvent) continue;
      events.push(channelEvent);
      sequenceNumbers.push(sequenceNumber);
    }

    const outcome = await fanOut(events, { ...ports, concurrency: POST_CONCURRENCY }, lookups);
    recordPushCounts({ ...outcome, failed: outcome.failed.length });
    if (events.length > 0 && outcome.sent > 0) {
      const oldest = Math.min(...events.map(({ recordedAtMs }) => recordedAtMs));
      recordMetric('pushLag', deps.nowMs() - oldest);
      const traded = events.flatMap(({ tradedAtMs }) => tradedAtMs ?? []);
      if (traded.length > 0) {
        // The hops of the latency budget (docs/benchmarks.md#the-latency-budget-hop-by-hop).
        const oldestTrade = Math.min(...traded);
        recordMetric('fanOutWait', startedMs - oldestTrade);
        recordMetric('tradeToPost', deps.nowMs() - oldestTrade);
      }
    }
    if (outcome.errors.length > 0) {
      logger.warn('some pushes failed', {
        errors: outcome.errors.slice(0, 10),
        count: outcome.errors.length,
      });
    }
    logger.info('fanned out a batch', {
      records: event.Records.length,
      events: events.length,
      sent: outcome.sent,
      frames: outcome.frames,
      gone: outcome.gone,
      closed: outcome.closed,
      withheld: outcome.withheld,
      failed: outcome.failed.length,
      usageUnrecorded: outcome.usageUnrecorded,
    });
    return {
      batchItemFailures: outcome.failed.flatMap((index) => {
        const itemIdentifier = sequenceNumbers[index];
        return itemIdentifier ? [{ itemIdentifier }] : [];
      }),
    };
  };

/**
 * The instruments, and the latest prices of the symbols whose states changed and are followed (a state push
 * carries both): the subscribers are looked up first, so a state nobody follows costs no price read. At a
 * 15-minute close most states change, and most symbols' states nobody follows.
 */
async function changeContext(
  changes: readonly SourceChange[],
  deps: FanOutDeps,
  followed: (symbols: readonly string[]) => Promise<string[]>,
): Promise<ChangeContext> {
  const stateSymbols = [
    ...new Set(changes.filter((c) => c.table === 'states').map((c) => String(c.newItem?.symbol ?? ''))),
  ].filter((symbol) => symbol.length > 0);
  const [instruments, pricedSymbols] = await Promise.all([deps.universe(), followed(stateSymbols)]);
  const prices: SymbolPrice[] = pricedSymbols.length > 0 ? await deps.prices().getMany(pricedSymbols) : [];
  const latest = new Map(prices.map((price) => [price.symbol, price]));
  return {
    instrument: (symbol) => instruments.get(symbol),
    latestPrice: (symbol) => latest.get(symbol),
  };
}

/** The fan-out on the service's ports (functions/runtime/ports/service-ports.ts): on AWS, or a local stack's. */
export const handlerOn = (
  p: StreamingPorts &
    Pick<
      ServicePorts,
      'universe' | 'priceStore' | 'clientConnections' | 'credentialsLookup' | 'usageSink' | 'nowMs'
    >,
) =>
  instrumented(
    createHandler({
      ports: () => ({
        subscriptions: p.subscriptionStore(),
        connections: p.connectionStore(),
        clients: p.clientConnections(),
        usage: p.usageSink(),
        nowMs: p.nowMs,
        credentials: p.credentialsLookup(),
      }),
      universe: p.universe,
      prices: p.priceStore,
      sources: p.changeSources,
      nowMs: p.nowMs,
    }),
  );

export const handler = handlerOn({
  ...awsStreamingPorts,
  universe,
  priceStore,
  clientConnections,
  credentialsLookup,
  usageSink,
  nowMs,
});

/**
 * `npm run bench -- amendments`: what keeping trades amendable costs (docs/candles.md#amendments,
 * docs/storage.md#the-session-trade-log). Two parts:
 *
 * - Sizes: for one symbol's batch of N trades in one minute, the bytes of its trade-log item and of the copy
 *   its ledger carries in `pending` (DynamoDB's item-size rules), and the write units they add per trade.
 * - On dynalite: one symbol trades for an hour (60 trades a minute, batches of 10, as the ingest Lambda's
 *   1-second window cuts them), then cancels and corrections of trades 1 to 60 minutes old come one batch
 *   each. Reported: DynamoDB requests per trade batch and per amendment, by operation, and milliseconds.
 */
import { LRUCache } from 'lru-cache';
import { DynamoBarStore } from '#adapters/dynamo/bar-store';
import { DynamoEventFeed } from '#adapters/dynamo/event-feed';
import { encodeLedger } from '#adapters/dynamo/ledger-codec';
import { DynamoLedgerStore } from '#adapters/dynamo/ledger-store';
import { DynamoSetupStore, DynamoStateStore } from '#adapters/dynamo/strat-state-stores';
import { DynamoTradeLog, toStoredEntry } from '#adapters/dynamo/trade-log';
import type { StreamItem, Trade } from '#domain/market-data/bars';
import { emptyLedger } from '#domain/market-data/ledger';
import type { TradeLogEntry } from '#domain/market-data/ports';
import { compactLogEntry } from '#domain/market-data/trade-log';
import {
  BREAKS_FEED,
  IN_FORCE_FEED,
  type InForceAlertBody,
  type SimultaneousBreakBody,
} from '#domain/strat/alerts';
import { FEED_CONNECTOR_SETTINGS } from '#use-cases/feed-connector';
import { type CommittedWrites, type IngestPorts, ingestTrades } from '#use-cases/ingest-trades';
import { localDocumentClient, localDynamoClient, startLocalDynamo } from '../local/dynamo.ts';
import { ensureTables, localTableName } from '../local/tables.ts';
import type { BenchResult } from './types.ts';
import { topLevelBytes } from './write-units.ts';

const OPEN_MS = Date.parse('2024-11-26T14:30:00Z');
const MINUTE_MS = 60_000;

let nextId = 0;
function trade(timestamp: number, price: number, size = 100): Trade {
  return { symbol: 'AAPL', price, size, timestamp, tradeId: `D-${String(++nextId).padStart(12, '0')}` };
}

function sizes(): BenchResult {
  const rows = [1, 10, 100, 1000].map((count) => {
    const trades = Array.from({ length: count }, (_, index) =>
      trade(OPEN_MS + Math.floor((index * MINUTE_MS) / count), 180 + (index % 100) / 100, 100 + (index % 7)),
    );
    const entry: TradeLogEntry = {
      symbol: 'AAPL',
      minuteMs: OPEN_MS,
      version: 123_456,
      trades: trades.map(({ symbol: _symbol, ...rest }) => rest),
      amendments: [],
    };
    const logItem = topLevelBytes(toStoredEntry(entry) as unknown as Record<string, unknown>);
    // What the entry adds to the ledger's stored item (compressed with it: ledger-codec.ts).
    const ledger = emptyLedger('AAPL');
    const pendingCopy =
      encodeLedger({ ledger, pending: { log: [compactLogEntry(entry)] } }).length -
      encodeLedger({ ledger }).length;
    return {
      'trades in the batch': count,
      'log item (B)': logItem,
      'log B/trade': Number((logItem / count).toFixed(1)),
      'log write units': Math.ceil(logItem / 1024),
      'ledger pending copy (B)': pendingCopy,
      'pending B/trade': Number((pendingCopy / count).toFixed(1)),
      'extra write units/trade (log + pending)': Number(
        ((Math.ceil(logItem / 1024) + pendingCopy / 1024) / count).toFixed(3),
      ),
    };
  });
  return {
    name: 'Session trade log: bytes and write units per trade (one symbol, one minute, one commit)',
    figures: { 'item-size rules': 'DynamoDB: names + values, ~1 B per 2 digits of a number' },
    rows,
  };
}

/**
 * The connector's memory of queued trades' times (functions/use-cases/feed-connector.ts: one entry per trade
 * within its de-duplication window, 200,000 by default), measured as heap growth.
 */
function connectorMemory(): BenchResult {
  const entries = FEED_CONNECTOR_SETTINGS.maxIdentities;
  const before = process.memoryUsage().heapUsed;
  const times = new LRUCache<string, number>({ max: entries });
  for (let index = 0; index < entries; index++) {
    times.set(`AAPL|D-${52_983_525_029_461 + index}`, OPEN_MS + index);
  }
  const bytes = process.memoryUsage().heapUsed - before;
  return {
    name: "Feed connector: the times of the trades it queued (an amendment's original time)",
    figures: {
      entries,
      'heap (MB)': Number((bytes / 1_048_576).toFixed(1)),
      'bytes per entry': Math.round(bytes / entries),
      kept: times.size,
    },
  };
}

/** Counts the DynamoDB requests the adapters send, by operation. */
function countingClient(endpoint: string) {
  const client = localDocumentClient(endpoint);
  const counts = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'benchCount' },
  );
  return { client, counts };
}

function portsOn(endpoint: string, nowMs: number) {
  const { client, counts } = countingClient(endpoint);
  const ports: IngestPorts = {
    ledgers: new DynamoLedgerStore<CommittedWrites>(client, localTableName('ledgers')),
    bars: new DynamoBarStore(client, localTableName('bars')),
    tradeLog: new DynamoTradeLog(client, localTableName('tradeLog')),
    alerts: new DynamoEventFeed<InForceAlertBody>(
      client,
      { feed: localTableName('alerts'), guards: localTableName('eventGuards') },
      IN_FORCE_FEED,
    ),
    breaks: new DynamoEventFeed<SimultaneousBreakBody>(
      client,
      { feed: localTableName('breaks'), guards: localTableName('eventGuards') },
      BREAKS_FEED,
    ),
    states: new DynamoStateStore(client, localTableName('states')),
    setups: new DynamoSetupStore(client, localTableName('setups')),
    sectorOf: () => 'Information Technology',
    nowMs: () => nowMs,
  };
  return { ports, counts };
}

const perCall = (counts: Map<string, number>, calls: number) =>
  [...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, count]) => `${name} ${(count / calls).toFixed(1)}`)
    .join(', ');

async function onDynalite(): Promise<BenchResult[]> {
  const dynamo = await startLocalDynamo({ port: 0 });
  try {
    await ensureTables(localDynamoClient(dynamo.endpoint));
    const { ports, counts } = portsOn(dynamo.endpoint, OPEN_MS + 62 * MINUTE_MS);
    const hour: Trade[] = [];
    for (let minute = 0; minute < 60; minute++) {
      for (let second = 0; second < 60; second++) {
        hour.push(
          trade(OPEN_MS + minute * MINUTE_MS + second * 1000, 180 + ((minute * 7 + second) % 50) / 10),
        );
      }
    }
    const batches: Trade[][] = [];
    for (let start = 0; start < hour.length; start += 10) batches.push(hour.slice(start, start + 10));
    let started = performance.now();
    for (const batch of batches) await ingestTrades(batch, ports);
    const tradeMs = (performance.now() - started) / batches.length;
    const tradeCounts = perCall(counts, batches.length);

    counts.clear();
    const amendments: StreamItem[] = [];
    const ages = [1, 2, 5, 10, 15, 20, 30, 40, 50, 59];
    for (const [index, age] of ages.entries()) {
      const original = hour[(60 - age) * 60 + 17] as Trade;
      amendments.push(
        index % 2 === 0
          ? { symbol: 'AAPL', amends: original.tradeId, timestamp: original.timestamp }
          : {
              symbol: 'AAPL',
              amends: original.tradeId,
              timestamp: original.timestamp,
              corrected: { price: original.price, size: 10, tradeId: `${original.tradeId}c` },
            },
      );
    }
    const latencies: number[] = [];
    let applied = 0;
    for (const amendment of amendments) {
      started = performance.now();
      const outcome = await ingestTrades([amendment], ports);
      latencies.push(performance.now() - started);
      applied += outcome.amendmentsApplied;
    }
    latencies.sort((a, b) => a - b);
    return [
      {
        name: 'Amendments on dynalite: one symbol, an hour of trades (3,600 in batches of 10), then 10 amendments of trades 1 to 59 minutes old, one batch each',
        figures: {
          'trade batch: ms': Number(tradeMs.toFixed(1)),
          'trade batch: requests': tradeCounts,
          'amendments applied': `${applied} of ${amendments.length}`,
          'amendment: ms (median)': Number((latencies[Math.floor(latencies.length / 2)] ?? 0).toFixed(1)),
          'amendment: ms (max)': Number((latencies.at(-1) ?? 0).toFixed(1)),
          'amendment: requests': perCall(counts, amendments.length),
        },
      },
    ];
  } finally {
    await dynamo.stop();
  }
}

export async function benchAmendments(): Promise<BenchResult[]> {
  return [sizes(), connectorMemory(), ...(await onDynalite())];
}

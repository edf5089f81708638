import { describe, expect, it } from 'vitest';
import { INGEST_WINDOWS } from '#contracts/ingestion';
import { MARKER_MEMORY_MS } from '#contracts/websocket';
import { HELD_LOG_BYTES } from '#domain/market-data/trade-log';
import {
  ASSUMPTIONS,
  batchSecondsOf,
  DESIGNS,
  type Design,
  dayCost,
  type MeasuredUnits,
  markerReadsPerDay,
  quoteFrames,
  SESSION_SECONDS,
  symbolBatchesPerDay,
  total,
  tradeLogItemsPerDay,
  webSocketMessagesDollars,
} from '../../../scripts/lib/cost-model.ts';

const UNITS: MeasuredUnits = {
  ingest: {
    ledgerBytesMean: 6_000,
    writeUnitsPerLedger: 6,
    stateBytesMean: 800,
    writeUnitsPerRecentSnapshot: 2,
    writeUnitsPerState: 1,
    stateWritesPerLedgerWrite: 0.1,
    writeUnitsPerBar: 1,
    barBytesMean: 80,
    writeUnitsPerTradeLogItem: 1,
    tradeLogBytesMean: 300,
    tradeLogBytesPerTrade: 30,
  },
  alerts: { writeUnitsPerAlert: 4 },
  push: { writeUnitsPerUsageRow: 1, usageRowBytes: 200, framesPerEvent: 1 },
  logs: { bytesPerInvocation: 2_000, bytesPerWindow: 1_800 },
};
const MARKET = { symbols: 8_000, tradesPerDay: 100_000_000, partners: 200, symbolsPerPartner: 50 };
/** The stack before lever 2: usage rows in DynamoDB. */
const BEFORE: Design = { capacity: 'on-demand', usageSink: 'dynamodb', ingest: 'lambda' };
/** The ingest Lambda, a batch per shard (`-c ingest=lambda`): the design most parts are priced by here. */
const LAMBDA = DESIGNS.lambda;
/** The same with every table on demand (`-c sessionCapacity=false`). */
const ON_DEMAND_LAMBDA: Design = { ...DESIGNS['on-demand'], ingest: 'lambda' };
/** The session's batches per shard: a batch spans about one invocation (no batching window, ADR 0024). */
const BATCHES = SESSION_SECONDS / batchSecondsOf();

describe('the cost model (docs/storage.md#a-trading-day-on-paper)', () => {
  it('counts a symbol-batch at most once per batch, and every batch of a symbol that trades all the time', () => {
    expect(symbolBatchesPerDay({ symbols: 1, tradesPerDay: 1e9 })).toBeCloseTo(BATCHES, -1);
    expect(symbolBatchesPerDay({ symbols: 8_000, tradesPerDay: 1 })).toBeCloseTo(1, 3);
    expect(symbolBatchesPerDay(MARKET)).toBeLessThan(8_000 * BATCHES);
  });

  it('prices the ledger writes (their latest prices within) from the measured write units, on demand', () => {
    const line = dayCost(MARKET, UNITS, ON_DEMAND_LAMBDA).find((entry) =>
      entry.part.startsWith('DynamoDB writes, ledgers'),
    );
    expect(line?.dollars).toBeCloseTo((symbolBatchesPerDay(MARKET) * 6 * 0.625) / 1e6, 6);
  });

  it("counts the session trade log's items by each symbol's rate, held a minute or a hold's worth at a time", () => {
    // A quiet symbol: its few trades each in a minute of their own, an item each.
    expect(tradeLogItemsPerDay({ symbols: 1, tradesPerDay: 20 }, 0.3, 30)).toBeCloseTo(20, 0);
    // A symbol trading all the time: a hold's worth of bytes an item, plus one a minute.
    const busy = { symbols: 1, tradesPerDay: 1e6 };
    expect(tradeLogItemsPerDay(busy, 0.3, 30)).toBeCloseTo(390 + (1e6 * 30) / HELD_LOG_BYTES, -1);
    // Never more than an item per commit: a hold smaller than a batch's trades writes every commit.
    expect(tradeLogItemsPerDay(busy, 0.3, 30_000)).toBeCloseTo(symbolBatchesPerDay(busy, 0.3), 0);
    expect(tradeLogItemsPerDay(MARKET, 0.3, 30)).toBeLessThan(symbolBatchesPerDay(MARKET, 0.3));
  });

  it('prices a Query per quote, and a marker read per batch until the marker is remembered', () => {
    // A symbol in every batch: its marker read once a minute by one process per shard.
    const busy = { symbols: 1, tradesPerDay: 1e7 };
    expect(markerReadsPerDay(busy, 0.3)).toBeCloseTo(
      (ASSUMPTIONS.shards * SESSION_SECONDS * 1000) / MARKER_MEMORY_MS,
      0,
    );
    // A quiet symbol: at every batch holding it, which is less often than that.
    const quiet = { symbols: 1, tradesPerDay: 500 };
    expect(markerReadsPerDay(quiet, 0.3)).toBeCloseTo(symbolBatchesPerDay(quiet, 0.3), 6);
    const line = dayCost(MARKET, UNITS, LAMBDA).find((entry) =>
      entry.part.startsWith('Subscription lookups'),
    );
    expect(line?.dollars).toBeCloseTo(
      ((symbolBatchesPerDay(MARKET) + markerReadsPerDay(MARKET, batchSecondsOf())) * 0.5 * 0.125) / 1e6,
      9,
    );
  });

  it('prices the session trade log: its items at their measured write units, provisioned for the session', () => {
    const lines = (design: Design) => dayCost(MARKET, UNITS, design);
    const log = (design: Design) =>
      lines(design).find((entry) => entry.part.startsWith('DynamoDB writes, session trade log'))?.dollars;
    expect(log(ON_DEMAND_LAMBDA)).toBeCloseTo(
      (tradeLogItemsPerDay(MARKET, batchSecondsOf(), 30) * 1 * 0.625) / 1e6,
      6,
    );
    expect(log(LAMBDA)).toBeLessThan(log(ON_DEMAND_LAMBDA) ?? 0);
  });

  it('prices a recent-bar snapshot per symbol and 15-minute close, written and removed', () => {
    const line = dayCost(MARKET, UNITS, ON_DEMAND_LAMBDA).find((entry) =>
      entry.part.startsWith('DynamoDB writes, recent-bar snapshots'),
    );
    expect(line?.dollars).toBeCloseTo((8_000 * 26 * 2 * 2 * 0.625) / 1e6, 6);
  });

  it('prices the ingest’s reads as enhanced fan-out of an on-demand stream: per GB read, and stream-hours', () => {
    const line = dayCost(MARKET, UNITS, LAMBDA).find((entry) => entry.part.includes('enhanced fan-out'));
    // 25 M records of 4 trades, each billed as 1 KB.
    const gb = (25_000_000 * 1024) / 1024 ** 3;
    expect(line?.dollars).toBeCloseTo(gb * 0.05 + 24 * 0.04, 6);
  });

  it('prices the ingest’s and the clock tick’s reads on demand: ledgers strongly consistent, states eventually', () => {
    const lines = dayCost(MARKET, UNITS, ON_DEMAND_LAMBDA);
    const read = (part: string) => lines.find((line) => line.part.startsWith(part))?.dollars;
    const symbolBatches = symbolBatchesPerDay(MARKET);
    // A 6,000-byte ledger is 2 read units; the clock tick reads every symbol's ledger once a quarter-hour, all day.
    expect(read('DynamoDB reads, ledgers')).toBeCloseTo(((symbolBatches + 96 * 8_000) * 2 * 0.125) / 1e6, 6);
    // A state is read for the commits that change it (as often as one is written) and for each symbol's
    // first commit of a quarter-hour of the session (26 of them), and three times by each roll: to find the
    // out-of-date ones, to roll those over, to repair the setup rows.
    expect(read('DynamoDB reads, states')).toBeCloseTo(
      ((symbolBatches * 0.1 + 26 * 8_000 + 3 * 96 * 8_000) * 0.5 * 0.125) / 1e6,
      6,
    );
  });

  it('provisions the reads for the session, and off-session for the clock tick’s reads or a share of the session’s', () => {
    const ledgerReads = (market: typeof MARKET) =>
      dayCost(market, UNITS, LAMBDA).find((line) => line.part.startsWith('DynamoDB reads, ledgers'))
        ?.dollars ?? 0;
    const sessionRolls = SESSION_SECONDS / 60 / 15;
    const session = (symbolBatchesPerDay(MARKET) + sessionRolls * 8_000) * 2;
    const average = session / SESSION_SECONDS;
    const offSessionTick = ((96 - sessionRolls) * 8_000 * 2) / (17 * 3_600) / 0.7;
    const offSession = Math.max(average * 0.05, offSessionTick);
    const rcuHours = average * 2 + (average / 0.7) * 6 + offSession * 17;
    expect(ledgerReads(MARKET)).toBeCloseTo(rcuHours * 0.000_13, 6);
    // Off-session, a market with few trades keeps what its clock tick reads.
    const quiet = { ...MARKET, tradesPerDay: 1_000 };
    const quietSession = (symbolBatchesPerDay(quiet) + sessionRolls * 8_000) * 2;
    expect(ledgerReads(quiet)).toBeGreaterThan(offSessionTick * 17 * 0.000_13);
    expect(offSessionTick).toBeGreaterThan((quietSession / SESSION_SECONDS) * 0.05);
  });

  it('totals every part, and each group adds up to the total', () => {
    const lines = dayCost(MARKET, UNITS, LAMBDA);
    expect(total(lines, 'ingest') + total(lines, 'fan-out') + total(lines, 'storage')).toBeCloseTo(
      total(lines),
      9,
    );
  });

  it('makes the usage rows cheaper with Firehose, and the ingest writes with session capacity (ADR 0021)', () => {
    const levers = dayCost(MARKET, UNITS, LAMBDA);
    const deployed = dayCost(MARKET, UNITS, BEFORE);
    const usage = (lines: typeof deployed) =>
      lines.find((line) => line.part.startsWith('Usage rows') && line.group === 'fan-out');
    expect(usage(levers)?.dollars).toBeLessThan((usage(deployed)?.dollars ?? 0) / 20);
    const writes = (lines: typeof deployed) =>
      lines.find((line) => line.part.startsWith('DynamoDB writes, ledgers'))?.dollars ?? 0;
    // Provisioned for the session: the open's hour at twice the average rate, the next six at 70%
    // utilization, the rest of the day at 5% of the average; about half of the same writes on demand.
    const average = (symbolBatchesPerDay(MARKET) * 6) / SESSION_SECONDS;
    const wcuHours = average * 2 + (average / 0.7) * 6 + average * 0.05 * 17;
    expect(writes(levers)).toBeCloseTo(wcuHours * 0.000_65, 6);
    expect(writes(levers)).toBeLessThan(writes(deployed) * 0.55);
  });

  it('prices the usage rows as Firehose ingestion of 4 KB records billed as 5 KB, plus an S3 PUT per buffer', () => {
    expect(LAMBDA.usageSink).toBe('firehose');
    const pushes = 200 * 50 * 0.4 * BATCHES;
    const lines = dayCost({ ...MARKET, partnerChangeShare: 0.4 }, UNITS, LAMBDA);
    const usage = lines.find((line) => line.part === 'Usage rows to Firehose and S3');
    // 20 rows of 200 bytes fill a 4,096-byte record; each record is billed 5 KB at $0.029 per GB.
    const firehose = (Math.ceil(pushes / 20) * 5 * 1024 * 0.029) / 1024 ** 3;
    // 18 GB a session in 5 MiB buffers: more objects than one a minute.
    const objects = (pushes * 200) / (5 * 1024 ** 2);
    expect(usage?.dollars).toBeCloseTo(firehose + (objects * 0.005) / 1_000, 6);
    expect(lines.find((line) => line.part.startsWith('Usage rows kept'))?.part).toContain('S3');
    expect(total(lines)).toBeLessThan(
      total(dayCost({ ...MARKET, partnerChangeShare: 0.4 }, UNITS, BEFORE)) - 50,
    );
  });

  it('writes at least one object a buffer interval while rows flow', () => {
    const usage = dayCost({ ...MARKET, partners: 1, symbolsPerPartner: 1 }, UNITS, LAMBDA).find(
      (line) => line.part === 'Usage rows to Firehose and S3',
    );
    expect(usage?.volume).toContain(`${SESSION_SECONDS / 60} objects`);
  });

  it("takes the share of batches a partner's symbols trade in when given", () => {
    const messages = (share?: number) =>
      dayCost(
        { ...MARKET, ...(share === undefined ? {} : { partnerChangeShare: share }) },
        UNITS,
        LAMBDA,
      ).find((line) => line.part === 'WebSocket messages')?.dollars;
    expect(messages(0.4)).toBeCloseTo(webSocketMessagesDollars(200 * 50 * 0.4 * BATCHES), 6);
    expect(messages()).toBeLessThan(messages(0.4) ?? 0);
  });

  it('prices the WebSocket messages by the month: the first billion at $1.00 a million, the rest at $0.80', () => {
    // 21 trading days a month: 40 M a day is 840 M a month, all of it in the first billion.
    expect(webSocketMessagesDollars(40e6)).toBeCloseTo(40, 9);
    // 100 M a day is 2.1 B a month: $1,000 for the first billion, $880 for the other 1.1 B.
    expect(webSocketMessagesDollars(100e6)).toBeCloseTo((1_000 + 880) / 21, 9);
    expect(webSocketMessagesDollars(0)).toBe(0);
    // Never dearer than the first billion's price, never cheaper than the rest's.
    for (const frames of [1e6, 47.6e6, 48e6, 1e9]) {
      expect(webSocketMessagesDollars(frames)).toBeLessThanOrEqual(frames / 1e6 + 1e-9);
      expect(webSocketMessagesDollars(frames)).toBeGreaterThanOrEqual((0.8 * frames) / 1e6 - 1e-9);
    }
  });

  it('gives a partner taking quotes batched one frame per shard batch holding any of its symbols', () => {
    const at = (share: number, market = MARKET) =>
      quoteFrames({ ...market, batchedShare: share }, 0.4, BATCHES, 1);
    expect(at(0)).toBeCloseTo(200 * 50 * 0.4 * BATCHES, 3);
    // 50 symbols at random over 8 shards: a shard's batch holds none of them with (1 - 0.4 / 8)^50.
    expect(at(1)).toBeCloseTo(200 * BATCHES * 8 * (1 - 0.95 ** 50), 3);
    expect(at(0.5)).toBeCloseTo((at(0) + at(1)) / 2, 3);
    // Never more frames than quotes, and as many for a partner following one symbol.
    expect(at(1)).toBeLessThan(at(0));
    const one = { ...MARKET, symbolsPerPartner: 1 };
    expect(at(1, one)).toBeCloseTo(at(0, one), 3);
  });

  it('prices the WebSocket messages and posts by frames, and the usage rows by quotes, when partners batch', () => {
    const line = (lines: ReturnType<typeof dayCost>, part: string) =>
      lines.find((entry) => entry.part.startsWith(part))?.dollars ?? 0;
    const single = dayCost({ ...MARKET, partnerChangeShare: 0.5 }, UNITS, LAMBDA);
    const batched = dayCost({ ...MARKET, partnerChangeShare: 0.5, batchedShare: 1 }, UNITS, LAMBDA);
    expect(line(batched, 'WebSocket messages')).toBeLessThan(line(single, 'WebSocket messages') / 3);
    expect(line(batched, 'Posting')).toBeLessThan(line(single, 'Posting'));
    expect(line(batched, 'Usage rows to Firehose')).toBeCloseTo(line(single, 'Usage rows to Firehose'), 9);
  });

  it('prices shorter ingest invocations as more batches: more ledger writes and quotes, and a dearer day', () => {
    const day = (ingestSeconds?: number) =>
      dayCost(MARKET, UNITS, { ...LAMBDA, ...(ingestSeconds === undefined ? {} : { ingestSeconds }) });
    const line = (lines: ReturnType<typeof dayCost>, part: string) =>
      lines.find((entry) => entry.part.startsWith(part))?.dollars ?? 0;
    expect(batchSecondsOf()).toBe(ASSUMPTIONS.ingestSeconds);
    expect(total(day(ASSUMPTIONS.ingestSeconds))).toBe(total(day()));
    const [long, short] = [day(0.3), day(0.1)];
    // A symbol trading all the time is in every batch: three times as many at a third of the length.
    expect(symbolBatchesPerDay({ symbols: 1, tradesPerDay: 1e9 }, 0.1)).toBeCloseTo(
      3 * symbolBatchesPerDay({ symbols: 1, tradesPerDay: 1e9 }, 0.3),
      -1,
    );
    for (const part of [
      'DynamoDB writes, ledgers',
      'WebSocket messages',
      'Subscription lookups',
      'Ingest Lambda',
    ])
      expect(line(short, part)).toBeGreaterThan(line(long, part));
    // A quiet symbol's trades each land in a batch of their own either way: its quotes do not triple.
    expect(line(short, 'WebSocket messages')).toBeLessThan(3 * line(long, 'WebSocket messages'));
    expect(total(short)).toBeGreaterThan(total(long));
  });

  it('prices the windowed consumer as deployed: quotes per window across the shards, ledgers committed 0.85 s apart and never read, Fargate tasks instead of the Lambda', () => {
    const line = (lines: ReturnType<typeof dayCost>, part: string) =>
      lines.find((entry) => entry.part.startsWith(part));
    const windowSeconds = INGEST_WINDOWS.windowMs / 1000;
    const commitSeconds = (INGEST_WINDOWS.commitIntervalMs - INGEST_WINDOWS.windowMs) / 1000;
    const windowed = dayCost(MARKET, UNITS, DESIGNS.deployed);
    expect(line(windowed, 'Ingest Lambda')).toBeUndefined();
    // Two tasks, 7.5 hours of the session's size (8 vCPU, 16 GB) and the rest of the day at 1 vCPU, 2 GB.
    expect(line(windowed, 'Ingest consumer on Fargate')?.dollars).toBeCloseTo(
      2 * (7.5 * (8 * 0.032_38 + 16 * 0.003_56) + 16.5 * (1 * 0.032_38 + 2 * 0.003_56)),
      6,
    );
    // Ledgers: a commit per symbol and 0.85 s it trades in, read by the clock tick alone.
    expect(line(windowed, 'DynamoDB writes, ledgers')?.volume).toContain(
      `${(symbolBatchesPerDay(MARKET, commitSeconds) / 1e6).toFixed(1)} M commits`,
    );
    expect(line(windowed, 'DynamoDB reads, ledgers')?.volume).toMatch(/^0\.0 M by the ingest/);
    // Quotes: a symbol's per window it trades in, a Query each.
    const quotes = symbolBatchesPerDay(MARKET, windowSeconds) * ((200 * 50) / 8_000);
    expect(line(windowed, 'WebSocket messages')?.dollars).toBeCloseTo(webSocketMessagesDollars(quotes), 6);
    expect(line(windowed, 'Subscription lookups')?.volume).toContain(
      `${(symbolBatchesPerDay(MARKET, windowSeconds) / 1e6).toFixed(1)} M Queries`,
    );
    // A batched partner: one frame per window holding any of its symbols, every shard's at once.
    const batched = dayCost({ ...MARKET, batchedShare: 1 }, UNITS, DESIGNS.deployed);
    const share = symbolBatchesPerDay(MARKET, windowSeconds) / (8_000 * (SESSION_SECONDS / windowSeconds));
    expect(line(batched, 'WebSocket messages')?.dollars).toBeCloseTo(
      webSocketMessagesDollars(200 * (SESSION_SECONDS / windowSeconds) * (1 - (1 - share) ** 50)),
      6,
    );
    expect(quoteFrames({ ...MARKET, batchedShare: 1 }, 0.4, 1, 1, 1)).toBeCloseTo(200 * (1 - 0.6 ** 50), 6);
    // The lease: renewed every second all day (and read as often by the standby), positions saved a window.
    const renewals = 86_400;
    const windows = SESSION_SECONDS / windowSeconds;
    expect(line(windowed, 'DynamoDB, the consumer’s lease')?.dollars).toBeCloseTo(
      ((renewals + windows) * 0.625 + renewals * 0.125) / 1e6,
      9,
    );
    expect(line(dayCost(MARKET, UNITS, LAMBDA), 'DynamoDB, the consumer’s lease')).toBeUndefined();
    // Logs: a window's bytes per window; the Lambda's per invocation, a batch per shard.
    const gb = 1024 ** 3;
    expect(line(windowed, 'CloudWatch Logs: the ingest')?.dollars).toBeCloseTo(
      ((windows * 1_800) / gb) * 0.5,
      9,
    );
    expect(line(dayCost(MARKET, UNITS, LAMBDA), 'CloudWatch Logs: the ingest')?.dollars).toBeCloseTo(
      ((8 * BATCHES * 2_000) / gb) * 0.5,
      9,
    );
  });
});

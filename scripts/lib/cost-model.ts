/**
 * A trading day's AWS cost by part (docs/storage.md#a-trading-day-on-paper, docs/adr/0021-cost-levers.md),
 * from the write units the benchmarks count (scripts/cost/measured-units.json) and AWS's list prices
 * (us-east-1), each a named constant with its source. Pure: `npm run cost` (scripts/cost.ts) prints it.
 */

import {
  CONSUMER_LEASE,
  CONSUMER_SESSION_SIZE_HOURS,
  type ConsumerTaskSize,
  INGEST_CONSUMER_TASKS,
  type IngestDesign,
} from '#contracts/ingest-consumer';
import { INGEST_BATCH, INGEST_WINDOWS } from '#contracts/ingestion';
import { CLOCK_TICK } from '#contracts/routes';
import { TRADE_LOG_RETENTION_DAYS } from '#contracts/tables';
import { USAGE_DELIVERY } from '#contracts/usage';
import { MARKER_MEMORY_MS } from '#contracts/websocket';
import { HELD_LOG_BYTES } from '#domain/market-data/trade-log';
import { USAGE_RECORD_BYTES } from '#domain/streaming/usage-records';

/** Regular session seconds (6.5 hours). */
export const SESSION_SECONDS = 23_400;
const MILLION = 1_000_000;
const GB = 1024 ** 3;

/** AWS list prices, us-east-1, before free tiers. */
export const PRICES = {
  /** DynamoDB pricing for on-demand capacity: $0.625 per million write request units. */
  dynamoWriteRequestUnit: 0.625 / MILLION,
  /** DynamoDB pricing for on-demand capacity: $0.125 per million read request units. */
  dynamoReadRequestUnit: 0.125 / MILLION,
  /** DynamoDB pricing for provisioned capacity: $0.00065 per WCU-hour. */
  dynamoWcuHour: 0.000_65,
  /** DynamoDB pricing for provisioned capacity: $0.00013 per RCU-hour. */
  dynamoRcuHour: 0.000_13,
  /** DynamoDB pricing: $0.25 per GB-month of table storage (standard table class). */
  dynamoStorageGbMonth: 0.25,
  /** Amazon Kinesis Data Streams pricing, on-demand: $0.08 per GB written, each record rounded up to 1 KB. */
  kinesisIngestGb: 0.08,
  /**
   * Amazon Kinesis Data Streams pricing, on-demand: $0.05 per GB read by an enhanced fan-out consumer. The
   * consumer-shard hour is a charge of provisioned streams only: an on-demand stream's price list has the
   * per-GB usage type (`OnDemand-BilledOutgoingEFOBytes`) and no consumer hours, as infracost models it
   * (infracost/infracost, internal/resources/aws/kinesis_stream.go).
   */
  kinesisEnhancedFanOutGb: 0.05,
  /** Amazon Kinesis Data Streams pricing, on-demand: $0.04 per stream-hour. */
  kinesisStreamHour: 0.04,
  /** AWS Lambda pricing, Arm: $0.0000133334 per GB-second. */
  lambdaGbSecond: 0.000_013_333_4,
  /** AWS Lambda pricing: $0.20 per million requests. */
  lambdaRequest: 0.2 / MILLION,
  /** Amazon API Gateway pricing, WebSocket APIs: $1.00 per million messages (first billion a month), 32 KB each. */
  webSocketMessage: 1 / MILLION,
  /** Amazon API Gateway pricing, WebSocket APIs: $0.80 per million messages beyond the first billion a month. */
  webSocketMessageOverBillion: 0.8 / MILLION,
  /** Amazon API Gateway pricing, WebSocket APIs: $0.25 per million connection minutes. */
  webSocketConnectionMinute: 0.25 / MILLION,
  /** Amazon Data Firehose pricing, Direct PUT: $0.029 per GB ingested, each record rounded up to 5 KB. */
  firehoseIngestGb: 0.029,
  /** Firehose Direct PUT's billing increment: a record is billed as a whole number of these. */
  firehoseBillingIncrementBytes: 5 * 1024,
  /** Amazon S3 pricing: $0.005 per 1,000 PUT requests (Firehose writes one object per buffer). */
  s3Put: 0.005 / 1_000,
  /** Amazon S3 pricing, Standard: $0.023 per GB-month. */
  s3StorageGbMonth: 0.023,
  /** Amazon CloudWatch pricing, Logs: $0.50 per GB ingested (standard log class). */
  cloudWatchLogsIngestGb: 0.5,
  /** AWS Fargate pricing, Linux on Arm: $0.03238 per vCPU-hour. */
  fargateVcpuHour: 0.032_38,
  /** AWS Fargate pricing, Linux on Arm: $0.00356 per GB-hour. */
  fargateGbHour: 0.003_56,
} as const;

/** What the benchmarks counted (scripts/cost/measured-units.json). */
export interface MeasuredUnits {
  readonly ingest: {
    readonly ledgerBytesMean: number;
    readonly writeUnitsPerLedger: number;
    /** The Strat's recent bars, an item of their own written when a bar of 15 minutes or more completes. */
    readonly writeUnitsPerRecentSnapshot: number;
    readonly stateBytesMean: number;
    readonly writeUnitsPerState: number;
    readonly stateWritesPerLedgerWrite: number;
    readonly writeUnitsPerBar: number;
    readonly barBytesMean: number;
    /** The session trade log's items: their write units and size, and its bytes per trade logged. */
    readonly writeUnitsPerTradeLogItem: number;
    readonly tradeLogBytesMean: number;
    readonly tradeLogBytesPerTrade: number;
  };
  readonly alerts: { readonly writeUnitsPerAlert: number };
  readonly push: {
    readonly writeUnitsPerUsageRow: number;
    readonly usageRowBytes: number;
    readonly framesPerEvent: number;
  };
  /**
   * What the ingest writes to CloudWatch Logs (its log line and its metrics as EMF): a Lambda invocation's,
   * the runtime's START, END and REPORT lines included, and a window's of the consumer.
   */
  readonly logs: { readonly bytesPerInvocation: number; readonly bytesPerWindow: number };
}

export interface Market {
  readonly symbols: number;
  readonly tradesPerDay: number;
  readonly partners: number;
  readonly symbolsPerPartner: number;
  /**
   * The share of batches in which a partner's symbol trades. Default: the universe's average from
   * the Zipf model (partners streaming a cross-section); partners that stream only the most liquid names see
   * more.
   */
  readonly partnerChangeShare?: number;
  /**
   * The share of partners that take their quotes batched (docs/websocket.md#batched-quotes): one frame per
   * shard's batch with all of their quotes in it. Default 0: every partner one frame per quote.
   */
  readonly batchedShare?: number;
}

/** The design choices ADRs 0021 and 0026 weigh; DESIGNS.deployed is the stack as lib/ builds it. */
export interface Design {
  /** Capacity of the ingest's tables, writes and reads: on demand, or provisioned and scheduled for the session. */
  readonly capacity: 'on-demand' | 'scheduled';
  /** Where the one `ws_message` row per pushed event goes. */
  readonly usageSink: 'dynamodb' | 'firehose';
  /**
   * How long one invocation of the ingest Lambda takes (ASSUMPTIONS.ingestSeconds unless given; the windowed
   * consumer has no invocations). A shard's batch holds
   * what arrived while the one before it ran, so it spans this too: shorter invocations mean more batches, a
   * quote in more of them, and less waiting for the batch in flight (docs/benchmarks.md#the-latency-budget-hop-by-hop).
   */
  readonly ingestSeconds?: number;
  /**
   * What ingests the trades: the windowed consumer of ADR 0026 (`windows`, as `cdk deploy` builds it): quotes
   * per window of INGEST_WINDOWS.windowMs across the shards, ledgers remembered and committed about once per
   * INGEST_WINDOWS.commitIntervalMs less a window, on Fargate tasks; or the Lambda, a batch per shard
   * (`lambda`, `cdk deploy -c ingest=lambda`).
   */
  readonly ingest: IngestDesign;
}

/** Assumptions no benchmark can count here; each is named in docs/storage.md#a-trading-day-on-paper. */
export const ASSUMPTIONS = {
  /** Trades are spread over symbols by rank, as 1/rank (a Zipf law): a few names trade most. */
  zipfExponent: 1,
  /** An invocation of the ingest, unless the design says otherwise (Design.ingestSeconds). */
  ingestSeconds: 0.3,
  /** Trades per Kinesis record: the feed connector puts a symbol's trades of one flush together. */
  tradesPerRecord: 4,
  /** A trade as JSON on the stream. */
  tradeBytes: 120,
  /** Completed bars per symbol and session (390 1m, 26 15m, 13 30m, 7 60m, 2 4h, 1 1d, and the rare longer). */
  barsPerSymbol: 440,
  /**
   * Recent-bar snapshots per symbol and day: one per 15-minute close at most (the 30m, 60m, 4h and daily
   * closes fall on those), each written and later removed (a delete is billed by the item's size).
   */
  recentSnapshotsPerSymbol: 26,
  /** In-force alerts per symbol and day, over all timeframes. */
  alertsPerSymbol: 4,
  /**
   * Ingest Lambda: 1,024 MB, one batch per shard at a time, back to back: it is busy through the session on
   * every shard. It posts the quotes (ADR 0024).
   */
  ingestGb: 1,
  shards: 8,
  /** Fan-out Lambda (states and alerts): 512 MB; posts of about 15 ms, 32 in flight; 100 stream records a call. */
  fanOutGb: 0.5,
  postSeconds: 0.015,
  postsInFlight: 32,
  streamRecordsPerInvocation: 100,
  /** Provisioned capacity follows the load at this utilization (target tracking), raised before the open. */
  targetUtilization: 0.7,
  /** Session hours provisioned (the schedule raises capacity 15 minutes before the open, lowers it after the close). */
  provisionedHours: 7,
  /**
   * The first of them at the open's rate, this many times the session's average (lib/constructs/
   * session-capacity.ts raises the floor to it at 09:15 and settles it at 10:15).
   */
  openHours: 1,
  openRateMultiple: 2,
  /** Outside the session: this share of the session's average capacity stays provisioned (writes). */
  offSessionShare: 0.05,
  /**
   * The clock tick (every minute, all day) rolls the states over at its first run of each quarter-hour
   * (CLOCK_TICK.rollStates): it reads every symbol's state, eventually consistent, then the ledger of each
   * state not derived since the last quarter-hour, strongly consistent, and that state again to roll it
   * over, then every state once more to repair the setup rows. Priced as if every ledger and its state were
   * read (a quiet symbol's state is rewritten only when it changes, so it is out of date at every roll):
   * three state reads and one ledger read per symbol and roll.
   */
  clockRollsPerDay: (24 * 60) / CLOCK_TICK.rollStates.everyMinutes,
  clockStateReadsPerRoll: 3,
  /**
   * Firehose: usage rows are packed in records of at most this (USAGE_RECORD_BYTES, under the 5 KB
   * rounding); it writes an object per buffer, every interval or per buffer size, whichever comes first
   * (USAGE_DELIVERY), while rows flow (the session).
   */
  firehoseRecordBytes: USAGE_RECORD_BYTES,
  s3ObjectBytes: USAGE_DELIVERY.bufferingSizeMiB * 1024 ** 2,
  s3ObjectSeconds: USAGE_DELIVERY.bufferingIntervalSeconds,
  /** Storage is priced as it stands after a year of bars, and two months of usage rows (USAGE_RETENTION_DAYS). */
  barDays: 365,
  usageRowDays: 62,
  /** A day's share of a month's storage bill. */
  daysPerMonth: 30,
  /**
   * Trading days a month (252 a year): the month's WebSocket messages, which API Gateway prices by the month's
   * total (the first billion, then less), are this many days' quotes.
   */
  tradingDaysPerMonth: 21,
} as const;

/**
 * A shard batch's span: with no batching window (INGEST_BATCH.windowSeconds), what arrived while the batch
 * before it ran, one invocation of the ingest.
 */
export const batchSecondsOf = (design: Pick<Design, 'ingestSeconds'> = {}) =>
  (design.ingestSeconds ?? ASSUMPTIONS.ingestSeconds) + INGEST_BATCH.windowSeconds;

/** Each symbol's trades a second in the session, by rank: its Zipf share of the day's trades. */
function sessionRates(market: Pick<Market, 'symbols' | 'tradesPerDay'>): number[] {
  const shares = Array.from(
    { length: market.symbols },
    (_, index) => (index + 1) ** -ASSUMPTIONS.zipfExponent,
  );
  const harmonic = shares.reduce((sum, share) => sum + share, 0);
  return shares.map((share) => (market.tradesPerDay * share) / harmonic / SESSION_SECONDS);
}

/** The expected number of `windows` of `seconds` each that hold a trade, at `rate` trades a second (Poisson). */
const windowsWithTrades = (rate: number, seconds: number, windows: number) =>
  windows * (1 - Math.exp(-rate * seconds));

/**
 * Symbol-batches a day: each symbol's expected number of batches with at least one trade, its trades
 * arriving as a Poisson stream at its Zipf share of the day's rate, in batches of `batchSeconds`.
 */
export function symbolBatchesPerDay(
  market: Pick<Market, 'symbols' | 'tradesPerDay'>,
  batchSeconds = batchSecondsOf(),
): number {
  const windows = SESSION_SECONDS / batchSeconds;
  return sessionRates(market).reduce((sum, rate) => sum + windowsWithTrades(rate, batchSeconds, windows), 0);
}

/**
 * Subscription marker reads a day for quotes, as if every symbol were followed (the most the lookups cost:
 * a followed topic is queried at each price it moves, and its marker read only when not remembered). Each
 * ingest process remembers a marker MARKER_MEMORY_MS; a shard's batches may run in any of the ingest's
 * processes, so a symbol's marker is priced as read once per memory by one process per shard (`processes`),
 * never more than once per batch holding it.
 */
export function markerReadsPerDay(
  market: Pick<Market, 'symbols' | 'tradesPerDay'>,
  batchSeconds: number,
  processes: number = ASSUMPTIONS.shards,
): number {
  const reads = (processes * SESSION_SECONDS * 1000) / MARKER_MEMORY_MS;
  const windows = SESSION_SECONDS / batchSeconds;
  return sessionRates(market).reduce(
    (sum, rate) => sum + Math.min(windowsWithTrades(rate, batchSeconds, windows), reads),
    0,
  );
}

/**
 * Session trade log items a day (docs/storage.md#the-session-trade-log). A symbol's ledger holds its latest
 * minute's entries while they take at most HELD_LOG_BYTES, and they are written as one item when a later
 * minute comes: one item per minute with a trade, and one more each time a minute fills the hold; never more
 * than one per commit (a batch holding the symbol).
 */
export function tradeLogItemsPerDay(
  market: Pick<Market, 'symbols' | 'tradesPerDay'>,
  batchSeconds: number,
  bytesPerTrade: number,
): number {
  const minutes = SESSION_SECONDS / 60;
  return sessionRates(market).reduce((sum, rate) => {
    const tradedMinutes = windowsWithTrades(rate, 60, minutes);
    const fills = (rate * SESSION_SECONDS * bytesPerTrade) / HELD_LOG_BYTES;
    const commits = windowsWithTrades(rate, batchSeconds, SESSION_SECONDS / batchSeconds);
    return sum + Math.min(commits, tradedMinutes + fills);
  }, 0);
}

export interface CostLine {
  readonly group: 'ingest' | 'fan-out' | 'storage';
  readonly part: string;
  readonly volume: string;
  readonly dollars: number;
}

const millions = (value: number) => `${(value / MILLION).toFixed(1)} M`;

/** DynamoDB's read units for one item of `bytes`: 4 KB steps, half as much eventually consistent. */
const readUnitsOf = (bytes: number, consistent: boolean) => Math.ceil(bytes / 4096) * (consistent ? 1 : 0.5);

/**
 * Dollars for a day's request units of one kind (writes, or reads) on one of the ingest's tables: on demand,
 * or on provisioned capacity scheduled for the session (lib/constructs/session-capacity.ts). `sessionUnits`
 * fall in the session's hours; `offSessionUnits` in the others (the clock tick's reads), which keep at least
 * offSessionShare of the session's average.
 */
function capacityDollars(
  kind: 'write' | 'read',
  { sessionUnits, offSessionUnits = 0 }: { sessionUnits: number; offSessionUnits?: number },
  design: Design,
): number {
  if (design.capacity === 'on-demand') {
    const price = kind === 'write' ? PRICES.dynamoWriteRequestUnit : PRICES.dynamoReadRequestUnit;
    return (sessionUnits + offSessionUnits) * price;
  }
  const sessionAverage = sessionUnits / SESSION_SECONDS;
  const provisioned = sessionAverage / ASSUMPTIONS.targetUtilization;
  const atTheOpen = Math.max(provisioned, sessionAverage * ASSUMPTIONS.openRateMultiple);
  const offSessionHours = 24 - ASSUMPTIONS.provisionedHours;
  const offSession = Math.max(
    sessionAverage * ASSUMPTIONS.offSessionShare,
    offSessionUnits / (offSessionHours * 3_600) / ASSUMPTIONS.targetUtilization,
  );
  const hours =
    atTheOpen * ASSUMPTIONS.openHours +
    provisioned * (ASSUMPTIONS.provisionedHours - ASSUMPTIONS.openHours) +
    offSession * offSessionHours;
  return hours * (kind === 'write' ? PRICES.dynamoWcuHour : PRICES.dynamoRcuHour);
}

/**
 * The windowed consumer's lease (functions/use-cases/consumer-lease.ts), an item of under 1 KB on demand:
 * renewed every CONSUMER_LEASE.renewEveryMs all day, its shard positions saved by every window of the
 * session, and read by the standby as often as it is renewed (strongly consistent).
 */
function consumerLeaseLine(windows: number): CostLine {
  const renewals = (24 * 3_600_000) / CONSUMER_LEASE.renewEveryMs;
  return {
    group: 'ingest',
    part: 'DynamoDB, the consumer’s lease and shard positions (on demand)',
    volume: `${millions(renewals + windows)} writes, ${millions(renewals)} reads`,
    dollars: (renewals + windows) * PRICES.dynamoWriteRequestUnit + renewals * PRICES.dynamoReadRequestUnit,
  };
}

const writeDollars = (units: number, design: Design) =>
  capacityDollars('write', { sessionUnits: units }, design);

/**
 * The usage rows as Firehose ingests them (functions/domain/streaming/usage-records.ts): whole rows packed in
 * records of at most firehoseRecordBytes, each billed as one 5 KB increment, and the S3 PUTs of the
 * objects Firehose writes, one per buffer.
 */
function usageToFirehose(pushes: number, rowBytes: number): CostLine {
  const rowsPerRecord = Math.max(1, Math.floor(ASSUMPTIONS.firehoseRecordBytes / rowBytes));
  const records = Math.ceil(pushes / rowsPerRecord);
  const increments = Math.ceil((rowsPerRecord * rowBytes) / PRICES.firehoseBillingIncrementBytes);
  const billedGb = (records * increments * PRICES.firehoseBillingIncrementBytes) / GB;
  const bytes = pushes * rowBytes;
  const objects = Math.max(SESSION_SECONDS / ASSUMPTIONS.s3ObjectSeconds, bytes / ASSUMPTIONS.s3ObjectBytes);
  return {
    group: 'fan-out',
    part: 'Usage rows to Firehose and S3',
    volume: `${millions(pushes)} rows in ${millions(records)} records (${billedGb.toFixed(1)} GB billed), ${Math.round(objects)} objects`,
    dollars: billedGb * PRICES.firehoseIngestGb + objects * PRICES.s3Put,
  };
}

/**
 * The designs `npm run cost -- --design` prices: the stack as `cdk deploy` builds it (the windowed ingest
 * consumer of ADR 0026 and the levers of ADR 0021: small ledgers, usage rows to Firehose, capacity scheduled
 * for the session), with `-c sessionCapacity=false` (every table on demand), and with `-c ingest=lambda` (the
 * ingest Lambda, a batch per shard).
 */
export const DESIGNS: Readonly<Record<'deployed' | 'on-demand' | 'lambda', Design>> = {
  deployed: { capacity: 'scheduled', usageSink: 'firehose', ingest: 'windows' },
  'on-demand': { capacity: 'on-demand', usageSink: 'firehose', ingest: 'windows' },
  lambda: { capacity: 'scheduled', usageSink: 'firehose', ingest: 'lambda' },
};

export function dayCost(market: Market, units: MeasuredUnits, design: Design): CostLine[] {
  const windowed = design.ingest === 'windows';
  const batchSeconds = batchSecondsOf(design);
  // What a quote spans (a shard's batch, or a window across the shards), and what a commit does.
  const quoteSeconds = windowed ? INGEST_WINDOWS.windowMs / 1000 : batchSeconds;
  // A busy symbol's commits come by the last window before its trades would wait past the interval.
  const commitSeconds = windowed
    ? (INGEST_WINDOWS.commitIntervalMs - INGEST_WINDOWS.windowMs) / 1000
    : batchSeconds;
  const symbolBatches = symbolBatchesPerDay(market, commitSeconds);
  const symbolWindows = windowed ? symbolBatchesPerDay(market, quoteSeconds) : symbolBatches;
  const windows = SESSION_SECONDS / quoteSeconds;
  const changeShare = symbolWindows / (market.symbols * windows);
  const records = market.tradesPerDay / ASSUMPTIONS.tradesPerRecord;
  const recordKb = Math.ceil((ASSUMPTIONS.tradesPerRecord * ASSUMPTIONS.tradeBytes) / 1024);
  const streamGb = (records * recordKb * 1024) / GB;
  const batches = ASSUMPTIONS.shards * windows;
  // The latest price is part of the ledger item (ADR 0023): no write of its own.
  const ledgerUnits = symbolBatches * units.ingest.writeUnitsPerLedger;
  const snapshots = market.symbols * ASSUMPTIONS.recentSnapshotsPerSymbol;
  const snapshotUnits = snapshots * 2 * units.ingest.writeUnitsPerRecentSnapshot;
  const stateUnits = symbolBatches * units.ingest.stateWritesPerLedgerWrite * units.ingest.writeUnitsPerState;
  const logItems = tradeLogItemsPerDay(market, commitSeconds, units.ingest.tradeLogBytesPerTrade);
  const markerReads = markerReadsPerDay(market, quoteSeconds, windowed ? 1 : ASSUMPTIONS.shards);
  const logUnits = logItems * units.ingest.writeUnitsPerTradeLogItem;
  const bars = market.symbols * ASSUMPTIONS.barsPerSymbol;
  const alerts = market.symbols * ASSUMPTIONS.alertsPerSymbol;
  const alertUnits = alerts * units.alerts.writeUnitsPerAlert;
  const capacity = design.capacity === 'on-demand' ? 'on demand' : 'provisioned, scheduled';
  // Reads: the ingest reads each symbol-batch's ledger (strongly consistent), and the stored state of a
  // commit that changed its symbol's derived state (eventually consistent, as often as a state is written)
  // or was its symbol's first of a quarter-hour (at most every symbol, each quarter-hour of the session);
  // the clock tick reads every symbol's ledger (at most), and its state three times, once a quarter-hour.
  const sessionRolls = SESSION_SECONDS / 60 / CLOCK_TICK.rollStates.everyMinutes;
  const offSessionRolls = ASSUMPTIONS.clockRollsPerDay - sessionRolls;
  const ledgerRead = readUnitsOf(units.ingest.ledgerBytesMean, true);
  const stateRead = readUnitsOf(units.ingest.stateBytesMean, false);
  const ingestStateReads =
    symbolBatches * units.ingest.stateWritesPerLedgerWrite + sessionRolls * market.symbols;
  // The windowed consumer reads a ledger once and remembers it.
  const ingestLedgerReads = windowed ? 0 : symbolBatches;
  const ledgerReads = {
    sessionUnits: (ingestLedgerReads + sessionRolls * market.symbols) * ledgerRead,
    offSessionUnits: offSessionRolls * market.symbols * ledgerRead,
  };
  const clockStateReads = (rolls: number) => ASSUMPTIONS.clockStateReadsPerRoll * rolls * market.symbols;
  const stateReads = {
    sessionUnits: (ingestStateReads + clockStateReads(sessionRolls)) * stateRead,
    offSessionUnits: clockStateReads(offSessionRolls) * stateRead,
  };

  // A quote per batch in which a partner's symbol traded (states and alerts are a small share on top).
  const partnerShare = market.partnerChangeShare ?? changeShare;
  const pushes = market.partners * market.symbolsPerPartner * partnerShare * windows;
  const frames = quoteFrames(
    market,
    partnerShare,
    windows,
    units.push.framesPerEvent,
    windowed ? 1 : ASSUMPTIONS.shards,
  );
  const usageLine: CostLine =
    design.usageSink === 'dynamodb'
      ? {
          group: 'fan-out',
          part: 'Usage rows in DynamoDB (on demand)',
          volume: `${millions(pushes)} rows × ${units.push.writeUnitsPerUsageRow} write units`,
          dollars: pushes * units.push.writeUnitsPerUsageRow * PRICES.dynamoWriteRequestUnit,
        }
      : usageToFirehose(pushes, units.push.usageRowBytes);
  // The ledgers have no stream: the fan-out reads the states' and alerts' (ADR 0024).
  const fanOutInvocations =
    (alerts + symbolBatches * units.ingest.stateWritesPerLedgerWrite) /
    ASSUMPTIONS.streamRecordsPerInvocation;
  // The quotes' posts run in the ingest, at its memory (in the consumer's tasks when windowed); the pushes
  // are nearly all quotes.
  const postGbSeconds = windowed
    ? 0
    : (frames * ASSUMPTIONS.postSeconds * ASSUMPTIONS.ingestGb) / ASSUMPTIONS.postsInFlight;
  const messagesDollars = webSocketMessagesDollars(frames);
  const messagesPerMillion = frames > 0 ? messagesDollars / frames : PRICES.webSocketMessage;
  const { session, offSession, count: consumerTasks } = INGEST_CONSUMER_TASKS;
  const offSessionHours = 24 - CONSUMER_SESSION_SIZE_HOURS;

  const barsGbPerDay = (bars * units.ingest.barBytesMean) / GB;
  // A day's trade log items, kept until they expire (as if every day of it were a trading day: the most).
  const logGbKept = (logItems * units.ingest.tradeLogBytesMean * TRADE_LOG_RETENTION_DAYS) / GB;
  const usageGbKept = (pushes * units.push.usageRowBytes * ASSUMPTIONS.usageRowDays) / GB;
  return [
    {
      group: 'ingest',
      part: 'Kinesis on demand: records written',
      volume: `${millions(records)} records of ${recordKb} KB`,
      dollars: streamGb * PRICES.kinesisIngestGb,
    },
    {
      group: 'ingest',
      part: 'Kinesis on demand: enhanced fan-out and stream-hours',
      volume: `${streamGb.toFixed(1)} GB read, 24 stream-hours`,
      dollars: streamGb * PRICES.kinesisEnhancedFanOutGb + 24 * PRICES.kinesisStreamHour,
    },
    windowed
      ? {
          group: 'ingest',
          part: 'Ingest consumer on Fargate (Arm)',
          volume: `${consumerTasks} tasks × ${CONSUMER_SESSION_SIZE_HOURS} h of ${session.vcpu} vCPU, ${session.memoryGb} GB, ${offSessionHours} h of ${offSession.vcpu} vCPU, ${offSession.memoryGb} GB`,
          dollars:
            consumerTasks *
            (CONSUMER_SESSION_SIZE_HOURS * fargateHour(session) + offSessionHours * fargateHour(offSession)),
        }
      : {
          group: 'ingest',
          part: 'Ingest Lambda',
          volume: `${millions(batches)} invocations of ${batchSeconds} s`,
          dollars:
            batches * batchSeconds * ASSUMPTIONS.ingestGb * PRICES.lambdaGbSecond +
            batches * PRICES.lambdaRequest,
        },
    {
      group: 'ingest',
      part: `DynamoDB writes, ledgers with their latest prices (${capacity})`,
      volume: `${millions(symbolBatches)} ${windowed ? 'commits' : 'symbol-batches'} × ${units.ingest.writeUnitsPerLedger} units`,
      dollars: writeDollars(ledgerUnits, design),
    },
    {
      group: 'ingest',
      part: `DynamoDB writes, recent-bar snapshots (${capacity})`,
      volume: `${millions(snapshots)} snapshots × ${units.ingest.writeUnitsPerRecentSnapshot} units, written and removed`,
      dollars: writeDollars(snapshotUnits, design),
    },
    {
      group: 'ingest',
      part: `DynamoDB writes, states (${capacity})`,
      volume: `${millions(stateUnits)} write units`,
      dollars: writeDollars(stateUnits, design),
    },
    {
      group: 'ingest',
      // Its reads are the amendments' Queries: a few read units a second at the schedule's floors, left out.
      part: `DynamoDB writes, session trade log (${capacity})`,
      volume: `${millions(logItems)} items × ${units.ingest.writeUnitsPerTradeLogItem} units`,
      dollars: writeDollars(logUnits, design),
    },
    {
      group: 'ingest',
      part: `DynamoDB reads, ledgers (${capacity})`,
      volume: `${millions(ingestLedgerReads)} by the ingest, ${millions(ASSUMPTIONS.clockRollsPerDay * market.symbols)} by the clock tick × ${ledgerRead} units`,
      dollars: capacityDollars('read', ledgerReads, design),
    },
    {
      group: 'ingest',
      part: `DynamoDB reads, states (${capacity})`,
      volume: `${millions(ingestStateReads)} by the ingest, ${millions(clockStateReads(ASSUMPTIONS.clockRollsPerDay))} by the clock tick × ${stateRead} units`,
      dollars: capacityDollars('read', stateReads, design),
    },
    {
      group: 'ingest',
      part: 'DynamoDB writes, bars (on demand)',
      volume: `${millions(bars)} bars × ${units.ingest.writeUnitsPerBar} units`,
      dollars: bars * units.ingest.writeUnitsPerBar * PRICES.dynamoWriteRequestUnit,
    },
    {
      group: 'ingest',
      part: 'DynamoDB writes, alerts (on demand)',
      volume: `${(alerts / 1_000).toFixed(0)} k alerts × ${units.alerts.writeUnitsPerAlert} units`,
      dollars: alertUnits * PRICES.dynamoWriteRequestUnit,
    },
    ...(windowed ? [consumerLeaseLine(windows)] : []),
    {
      group: 'ingest',
      part: 'CloudWatch Logs: the ingest’s log lines and metrics',
      volume: windowed
        ? `${millions(windows)} windows × ${units.logs.bytesPerWindow} bytes`
        : `${millions(batches)} invocations × ${units.logs.bytesPerInvocation} bytes`,
      dollars:
        ((windowed ? windows * units.logs.bytesPerWindow : batches * units.logs.bytesPerInvocation) / GB) *
        PRICES.cloudWatchLogsIngestGb,
    },
    {
      group: 'fan-out',
      part: 'DynamoDB Streams reads by Lambda',
      volume: 'free for Lambda triggers',
      dollars: 0,
    },
    {
      group: 'fan-out',
      // As if every symbol were followed (the most it costs): a Query per quote, its marker read when not
      // remembered (half a read unit each, eventually consistent).
      part: 'Subscription lookups (Queries, and markers not remembered)',
      volume: `${millions(symbolWindows)} Queries, ${millions(markerReads)} marker reads × 0.5 read unit`,
      dollars: (symbolWindows + markerReads) * 0.5 * PRICES.dynamoReadRequestUnit,
    },
    {
      group: 'fan-out',
      part: 'Posting (in the ingest) and the fan-out Lambda',
      volume: `${(postGbSeconds / 1_000).toFixed(0)} k GB-s of posts, ${millions(fanOutInvocations)} fan-out invocations`,
      dollars: postGbSeconds * PRICES.lambdaGbSecond + fanOutInvocations * PRICES.lambdaRequest,
    },
    {
      group: 'fan-out',
      // A fan-out invocation logs a line and its push metrics, priced as an ingest invocation's.
      part: 'CloudWatch Logs: the fan-out’s log lines and metrics',
      volume: `${millions(fanOutInvocations)} invocations × ${units.logs.bytesPerInvocation} bytes`,
      dollars: ((fanOutInvocations * units.logs.bytesPerInvocation) / GB) * PRICES.cloudWatchLogsIngestGb,
    },
    {
      group: 'fan-out',
      part: 'WebSocket messages',
      volume: `${millions(frames)} frames for ${millions(pushes)} quotes (${(partnerShare * 100).toFixed(0)}% of ${windowed ? 'windows' : 'batches'}, ${((market.batchedShare ?? 0) * 100).toFixed(0)}% of partners batched), $${(messagesPerMillion * MILLION).toFixed(2)} a million`,
      dollars: messagesDollars,
    },
    {
      group: 'fan-out',
      part: 'WebSocket connection minutes',
      volume: `${market.partners} × 1,440 minutes`,
      dollars: market.partners * 1_440 * PRICES.webSocketConnectionMinute,
    },
    usageLine,
    {
      group: 'storage',
      part: `DynamoDB storage, bars (after ${ASSUMPTIONS.barDays} days)`,
      volume: `${(barsGbPerDay * ASSUMPTIONS.barDays).toFixed(0)} GB`,
      dollars: (barsGbPerDay * ASSUMPTIONS.barDays * PRICES.dynamoStorageGbMonth) / ASSUMPTIONS.daysPerMonth,
    },
    {
      group: 'storage',
      part: `DynamoDB storage, session trade log (kept ${TRADE_LOG_RETENTION_DAYS} days)`,
      volume: `${logGbKept.toFixed(0)} GB`,
      dollars: (logGbKept * PRICES.dynamoStorageGbMonth) / ASSUMPTIONS.daysPerMonth,
    },
    {
      group: 'storage',
      part: `Usage rows kept ${ASSUMPTIONS.usageRowDays} days (${design.usageSink === 'dynamodb' ? 'DynamoDB' : 'S3'})`,
      volume: `${usageGbKept.toFixed(0)} GB`,
      dollars:
        (usageGbKept *
          (design.usageSink === 'dynamodb' ? PRICES.dynamoStorageGbMonth : PRICES.s3StorageGbMonth)) /
        ASSUMPTIONS.daysPerMonth,
    },
  ];
}

/** A Fargate (Arm) task of `size` for an hour. */
const fargateHour = (size: ConsumerTaskSize) =>
  size.vcpu * PRICES.fargateVcpuHour + size.memoryGb * PRICES.fargateGbHour;

/**
 * A trading day's share of the month's WebSocket messages bill, `framesPerDay` on each of the month's trading
 * days (ASSUMPTIONS.tradingDaysPerMonth): the month's first billion at $1.00 a million, the rest at $0.80.
 */
export function webSocketMessagesDollars(framesPerDay: number): number {
  const month = framesPerDay * ASSUMPTIONS.tradingDaysPerMonth;
  const firstBillion = Math.min(month, 1_000 * MILLION);
  const monthDollars =
    firstBillion * PRICES.webSocketMessage + (month - firstBillion) * PRICES.webSocketMessageOverBillion;
  return monthDollars / ASSUMPTIONS.tradingDaysPerMonth;
}

/**
 * WebSocket frames carrying quotes in a day. A partner taking quotes one to a frame gets one per quote. One
 * taking them batched gets one per shard's batch holding any of its symbols: each shard's ingest posts its own
 * batch, so its symbols, spread over the shards, come in up to one frame per shard and batch. With S symbols
 * placed on n shards at random and each in a batch with probability p, a shard's batch holds none of them
 * with probability (1 - p/n)^S (the binomial's generating function), so a batch window brings
 * n (1 - (1 - p/n)^S) frames: p S for one symbol, at most n. `posters`: the n posting their own batches (one
 * for the windowed consumer, which posts every shard's quotes of a window at once).
 */
export function quoteFrames(
  market: Market,
  partnerShare: number,
  windows: number,
  framesPerEvent: number,
  posters: number = ASSUMPTIONS.shards,
): number {
  const single = market.symbolsPerPartner * partnerShare * framesPerEvent;
  const batched = posters * (1 - (1 - partnerShare / posters) ** market.symbolsPerPartner);
  const share = market.batchedShare ?? 0;
  return market.partners * windows * ((1 - share) * single + share * batched);
}

export const total = (lines: readonly CostLine[], group?: CostLine['group']) =>
  lines
    .filter((line) => group === undefined || line.group === group)
    .reduce((sum, line) => sum + line.dollars, 0);

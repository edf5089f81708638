import { describe, expect, it } from 'vitest';
import {
  type Design,
  dayCost,
  type MeasuredUnits,
  SESSION_SECONDS,
  symbolBatchesPerDay,
  total,
} from '../../../scripts/lib/cost-model.ts';

const UNITS: MeasuredUnits = {
  ingest: {
    ledgerBytesMean: 6_000,
    writeUnitsPerLedger: 6,
    writeUnitsPerPrice: 1,
    writeUnitsPerState: 1,
    stateWritesPerLedgerWrite: 0.1,
    writeUnitsPerBar: 1,
    barBytesMean: 80,
  },
  alerts: { writeUnitsPerAlert: 4 },
  push: { writeUnitsPerUsageRow: 1, usageRowBytes: 200, framesPerEvent: 1 },
};
const MARKET = { symbols: 8_000, tradesPerDay: 100_000_000, partners: 200, symbolsPerPartner: 50 };
const DEPLOYED: Design = { writeCapacity: 'on-demand', usageSink: 'dynamodb', ledgerWriteUnits: 'measured' };

describe('the cost model (docs/storage.md#a-trading-day-on-paper)', () => {
  it('counts a symbol-batch at most once per window, and every window of a symbol that trades all the time', () => {
    expect(symbolBatchesPerDay({ symbols: 1, tradesPerDay: 1e9 })).toBeCloseTo(SESSION_SECONDS, -1);
    expect(symbolBatchesPerDay({ symbols: 8_000, tradesPerDay: 1 })).toBeCloseTo(1, 3);
    expect(symbolBatchesPerDay(MARKET)).toBeLessThan(8_000 * SESSION_SECONDS);
  });

  it('prices ledger and price writes from the measured write units, on demand', () => {
    const line = dayCost(MARKET, UNITS, DEPLOYED).find((entry) =>
      entry.part.startsWith('DynamoDB writes, ledgers'),
    );
    expect(line?.dollars).toBeCloseTo((symbolBatchesPerDay(MARKET) * 7 * 0.625) / 1e6, 6);
  });

  it('totals every part, and each group adds up to the total', () => {
    const lines = dayCost(MARKET, UNITS, DEPLOYED);
    expect(total(lines, 'ingest') + total(lines, 'fan-out') + total(lines, 'storage')).toBeCloseTo(
      total(lines),
      9,
    );
  });

  it('makes the usage rows and the ingest writes cheaper with the levers of ADR 0021', () => {
    const levers = dayCost(MARKET, UNITS, {
      writeCapacity: 'scheduled',
      usageSink: 'firehose',
      ledgerWriteUnits: 'under-1kb',
    });
    const deployed = dayCost(MARKET, UNITS, DEPLOYED);
    const usage = (lines: typeof deployed) =>
      lines.find((line) => line.part.startsWith('Usage rows') && line.group === 'fan-out');
    expect(usage(levers)?.dollars).toBeLessThan((usage(deployed)?.dollars ?? 0) / 20);
    expect(total(levers, 'ingest')).toBeLessThan(total(deployed, 'ingest') / 3);
  });

  it("takes a partner symbol's share of changing windows when given", () => {
    const messages = (share?: number) =>
      dayCost(
        { ...MARKET, ...(share === undefined ? {} : { partnerChangeShare: share }) },
        UNITS,
        DEPLOYED,
      ).find((line) => line.part === 'WebSocket messages')?.dollars;
    expect(messages(0.4)).toBeCloseTo((200 * 50 * 0.4 * SESSION_SECONDS) / 1e6, 6);
    expect(messages()).toBeLessThan(messages(0.4) ?? 0);
  });
});

import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { INTERVALS } from '#domain/market-data/intervals';
import type { SymbolLedger } from '#domain/market-data/ledger';

/**
 * How a symbol's ledger (and the pending writes of its last commit) is stored: one binary attribute, the JSON
 * of both compressed with raw DEFLATE primed by a preset dictionary of the ledger's own field names and
 * shapes (docs/storage.md#ledgers). DynamoDB bills a write by the item's size in started KB, and the ledger is
 * written on every batch its symbol trades in: as a nested map it took about 11 KB (every attribute name
 * spelled out in every bar), compressed it takes about one. The JSON keeps every number exactly.
 *
 * The first byte names the format. The dictionary belongs to format 1 forever: data written with it is read
 * with it (test/unit/adapters/dynamo/ledger-codec.test.ts pins its digest); a better dictionary is format 2.
 */
const FORMAT_PRESET_DICTIONARY = 1;

const SAMPLE_BAR = '{"time":1732221000,"open":100.25,"high":100.5,"low":99.75,"close":100.25,"volume":12345';
const SAMPLE_FORMING = `${SAMPLE_BAR},"startMs":1732221000000,"endMs":1732222800000}`;
const SAMPLE_RECENT = `[${SAMPLE_BAR}},${SAMPLE_BAR}},${SAMPLE_BAR}}]`;

/**
 * Text that most ledgers repeat, nearest the end where DEFLATE finds it cheapest: the pending writes'
 * shapes, then the ledger's, in the order JSON.stringify writes them.
 */
export const LEDGER_DICTIONARY = Buffer.from(
  [
    '"alerts":[{"symbol":"","timeframe":"15m","direction":"bullish","shape":"","price":,"triggeredAt":1732221000000,"cc":"2U","periodTime":1732221000}]',
    '"direction":"bearish","cc":"2D","cc":"3","removedBars":[{"symbol":"","interval":"1m","time":1732221000}],"restates":["',
    `"fired":{${INTERVALS.slice(1)
      .map((interval) => `"${interval}":{"bullish":true,"bearish":true,"last":"bullish"}`)
      .join(',')}}`,
    `{"ledger":{"symbol":"","forming":{${INTERVALS.map((interval) => `"${interval}":${SAMPLE_FORMING}`).join(',')}}`,
    `,"recent":{${INTERVALS.slice(1)
      .map((interval) => `"${interval}":${SAMPLE_RECENT}`)
      .join(',')}}`,
    ',"lastTrade":{"timestamp":1732222799000,"tradeId":""},"price":{"price":100.25,"volume":100,"timestamp":1732222799000,"tradeId":""}',
    ',"recentTrades":{"afterMs":1732222794000,"timestamps":[1732222795000,1732222796000],"tradeIds":["",""]}},',
    `"pending":{"bars":[{"symbol":"","interval":"1m","bar":${SAMPLE_BAR}}}],"price":{"symbol":"","price":100.25,"volume":100,"timestamp":1732222799000,"tradeId":""},"alerts":[],`,
    '"log":[{"minuteMs":1732222740000,"version":1,"t":[0,1000],"i":["",""],"p":[100.25,100.5],"s":[100,200],"v":[0]}],"batchMark":{"timestamp":1732222799000,"tradeId":""}}}',
  ].join(''),
);

export type RecentBars = NonNullable<SymbolLedger['recent']>;

export interface StoredLedger<Pending> {
  readonly ledger: SymbolLedger;
  readonly pending?: Pending;
}

export function encodeLedger<Pending>(stored: StoredLedger<Pending>): Uint8Array {
  return encode(
    stored.pending === undefined
      ? { ledger: stored.ledger }
      : { ledger: stored.ledger, pending: stored.pending },
  );
}

export function decodeLedger<Pending>(bytes: Uint8Array): StoredLedger<Pending> {
  return decode(bytes) as StoredLedger<Pending>;
}

/** The Strat's recent bars, stored in an item of their own (docs/storage.md#ledgers), in the same format. */
export function encodeRecentBars(recent: RecentBars): Uint8Array {
  return encode(recent);
}

export function decodeRecentBars(bytes: Uint8Array): RecentBars {
  return decode(bytes) as RecentBars;
}

function encode(value: unknown): Uint8Array {
  const body = deflateRawSync(JSON.stringify(value), { dictionary: LEDGER_DICTIONARY });
  const bytes = new Uint8Array(body.length + 1);
  bytes[0] = FORMAT_PRESET_DICTIONARY;
  bytes.set(body, 1);
  return bytes;
}

function decode(bytes: Uint8Array): unknown {
  if (bytes[0] !== FORMAT_PRESET_DICTIONARY) {
    throw new Error(`ledger stored in an unknown format ${bytes[0]}`);
  }
  return JSON.parse(inflateRawSync(bytes.subarray(1), { dictionary: LEDGER_DICTIONARY }).toString('utf8'));
}

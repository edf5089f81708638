/**
 * Which trades count, and for what: the consolidated tape's sale conditions, one table for every provider
 * (docs/data-sources.md#which-trades-count). Each row is one sale condition with its consolidated update
 * rules (the CTA and UTP plans' guidelines: does a trade with it update the last sale price, the high and
 * low, the open and close, the volume) and the codes it arrives as: a letter on the CTA plan's tapes A and
 * B, a letter on the UTP plan's tape C (what Alpaca sends, with the tape), a numeric id (what Polygon.io /
 * Massive sends, whatever the tape).
 *
 * A trade with several conditions updates a field only if every one of them allows it. A code the table does
 * not know counts in volume only (it moves no price) and is reported as unknown, so the table can be
 * completed rather than a print of an unknown kind moving a price.
 */

export interface ConditionEffect {
  readonly lastPrice: boolean;
  readonly highLow: boolean;
  readonly openClose: boolean;
  readonly volume: boolean;
}

interface ConditionRow {
  readonly name: string;
  /** Updates: last sale price, high/low, open/close, volume. */
  readonly updates: readonly [boolean, boolean, boolean, boolean];
  readonly cta?: string;
  readonly utp?: string;
  readonly polygon?: readonly number[];
  /** A single-priced auction print, which the LULD band exempts (functions/domain/feed/price-band.ts). */
  readonly auction?: Auction;
}

/** Which auction a print comes from: the open, a reopening after a pause, the close. */
export type Auction = 'open' | 'reopen' | 'close';

const Y = true;
const N = false;

/** The table (docs/data-sources.md#which-trades-count prints it). */
export const SALE_CONDITIONS: readonly ConditionRow[] = [
  { name: 'Regular Sale', updates: [Y, Y, Y, Y], cta: ' ', utp: '@', polygon: [0] },
  { name: 'Acquisition', updates: [Y, Y, Y, Y], utp: 'A', polygon: [1] },
  { name: 'Average Price Trade', updates: [N, N, N, Y], cta: 'B', utp: 'W', polygon: [2] },
  { name: 'Automatic Execution', updates: [Y, Y, Y, Y], cta: 'E', polygon: [3] },
  { name: 'Bunched Trade', updates: [Y, Y, Y, Y], utp: 'B', polygon: [4] },
  { name: 'Bunched Sold Trade', updates: [N, Y, N, Y], utp: 'G', polygon: [5] },
  { name: 'Cash Sale', updates: [N, N, N, Y], cta: 'C', utp: 'C', polygon: [7] },
  { name: 'Cross Trade', updates: [Y, Y, Y, Y], cta: 'X', utp: 'X', polygon: [9] },
  { name: 'Derivatively Priced', updates: [N, Y, N, Y], cta: '4', utp: '4', polygon: [10] },
  { name: 'Distribution', updates: [Y, Y, Y, Y], utp: 'D', polygon: [11] },
  { name: 'Form T (extended hours)', updates: [N, N, N, Y], cta: 'T', utp: 'T', polygon: [12] },
  { name: 'Extended Hours Sold (Out of Sequence)', updates: [N, N, N, Y], cta: 'U', utp: 'U', polygon: [13] },
  { name: 'Intermarket Sweep', updates: [Y, Y, Y, Y], cta: 'F', utp: 'F', polygon: [14] },
  { name: 'Market Center Official Close', updates: [N, N, N, N], cta: 'M', utp: 'M', polygon: [15] },
  { name: 'Market Center Official Open', updates: [N, N, N, N], cta: 'Q', utp: 'Q', polygon: [16] },
  { name: 'Opening Trade', updates: [Y, Y, Y, Y], cta: 'O', utp: 'O', polygon: [17, 25], auction: 'open' },
  {
    name: 'Reopening Trade',
    updates: [Y, Y, Y, Y],
    cta: '5',
    utp: '5',
    polygon: [18, 28],
    auction: 'reopen',
  },
  { name: 'Closing Trade', updates: [Y, Y, Y, Y], cta: '6', utp: '6', polygon: [8, 19], auction: 'close' },
  { name: 'Next Day', updates: [N, N, N, Y], cta: 'N', utp: 'N', polygon: [20] },
  { name: 'Price Variation Trade', updates: [N, N, N, Y], cta: 'H', utp: 'H', polygon: [21] },
  { name: 'Prior Reference Price', updates: [N, Y, N, Y], cta: 'P', utp: 'P', polygon: [22] },
  { name: 'Rule 127 / Rule 155 Trade', updates: [Y, Y, Y, Y], cta: 'K', utp: 'K', polygon: [23, 24] },
  { name: 'Stopped Stock (Regular Trade)', updates: [Y, Y, Y, Y], utp: '1', polygon: [27] },
  { name: 'Stopped Stock (Sold Last)', updates: [Y, Y, Y, Y], utp: '2', polygon: [31] },
  { name: 'Stopped Stock (Sold Out of Sequence)', updates: [N, Y, N, Y], utp: '3', polygon: [33] },
  { name: 'Seller', updates: [N, N, N, Y], cta: 'R', utp: 'R', polygon: [29] },
  { name: 'Sold Last', updates: [Y, Y, Y, Y], cta: 'L', utp: 'L', polygon: [30] },
  { name: 'Sold (Out of Sequence)', updates: [N, Y, N, Y], cta: 'Z', utp: 'Z', polygon: [32] },
  { name: 'Split Trade', updates: [Y, Y, Y, Y], utp: 'S', polygon: [34] },
  { name: 'Yellow Flag Regular Trade', updates: [Y, Y, Y, Y], utp: 'Y', polygon: [36] },
  { name: 'Odd Lot Trade', updates: [N, N, N, Y], cta: 'I', utp: 'I', polygon: [37] },
  {
    name: 'Corrected Consolidated Close (per listing market)',
    updates: [Y, Y, Y, N],
    cta: '9',
    utp: '9',
    polygon: [38],
  },
  { name: 'Trade Thru Exempt (611 exempt)', updates: [Y, Y, Y, Y], cta: '8', utp: '8', polygon: [41] },
  { name: 'Contingent Trade', updates: [N, N, N, Y], cta: 'V', utp: 'V', polygon: [52] },
  { name: 'Qualified Contingent Trade', updates: [N, N, N, Y], cta: '7', utp: '7', polygon: [53] },
  { name: 'CAP Election', updates: [Y, Y, Y, Y], polygon: [6] },
  { name: 'Stock Option', updates: [Y, Y, Y, Y], polygon: [35] },
  { name: 'Opening / Reopening Trade Detail', updates: [Y, Y, Y, Y], polygon: [55] },
  { name: 'Placeholder (tape C)', updates: [N, N, N, Y], utp: 'E' },
  /**
   * Not sale conditions: Massive sends a trade's short-sale-restriction (57-60) and financial-status (62-71)
   * indicators among its conditions ([12, 60] on an extended-hours print). They restrict nothing: a regular
   * sale tagged with one stays a regular sale.
   */
  { name: 'Short-sale restriction indicator', updates: [Y, Y, Y, Y], polygon: [57, 58, 59, 60] },
  {
    name: 'Financial status indicator',
    updates: [Y, Y, Y, Y],
    polygon: [62, 63, 64, 65, 66, 67, 68, 69, 70, 71],
  },
];

/** How Alpaca and the CTA / UTP plans name the tape a trade printed on. */
export type Plan = 'cta' | 'utp';

const byCta = new Map<string, ConditionRow>();
const byUtp = new Map<string, ConditionRow>();
const byPolygon = new Map<number, ConditionRow>();
for (const row of SALE_CONDITIONS) {
  if (row.cta !== undefined) byCta.set(row.cta, row);
  if (row.utp !== undefined) byUtp.set(row.utp, row);
  for (const id of row.polygon ?? []) byPolygon.set(id, row);
}
/** UTP prints its regular sale '@', CTA a space; each sends the other's now and then: both mean regular. */
byCta.set('@', byUtp.get('@') as ConditionRow);
byUtp.set(' ', byUtp.get('@') as ConditionRow);

const FULL: ConditionEffect = { lastPrice: true, highLow: true, openClose: true, volume: true };
const UNKNOWN: ConditionEffect = { lastPrice: false, highLow: false, openClose: false, volume: true };

export interface ConditionVerdict {
  readonly effect: ConditionEffect;
  /** Codes the table does not know (the trade counted in volume only). */
  readonly unknown: readonly (string | number)[];
  /** Set when one of the conditions marks an auction print. */
  readonly auction?: Auction;
}

function combine(
  rows: readonly (ConditionRow | undefined)[],
  codes: readonly (string | number)[],
): ConditionVerdict {
  let lastPrice = true;
  let highLow = true;
  let openClose = true;
  let volume = true;
  const unknown: (string | number)[] = [];
  const auction = rows.find((row) => row?.auction !== undefined)?.auction;
  rows.forEach((row, index) => {
    if (row === undefined) {
      unknown.push(codes[index] as string | number);
      lastPrice = highLow = openClose = false;
      return;
    }
    const [last, hl, oc, vol] = row.updates;
    lastPrice &&= last;
    highLow &&= hl;
    openClose &&= oc;
    volume &&= vol;
  });
  if (rows.length === 0) return { effect: FULL, unknown };
  if (unknown.length === rows.length) return { effect: UNKNOWN, unknown };
  const effect = { lastPrice, highLow, openClose, volume };
  return auction === undefined ? { effect, unknown } : { effect, unknown, auction };
}

/** The effect of a trade's letter conditions on a plan's tape (no conditions: a regular sale). */
export function letterConditionsEffect(plan: Plan, codes: readonly string[]): ConditionVerdict {
  const index = plan === 'cta' ? byCta : byUtp;
  return combine(
    codes.map((code) => index.get(code)),
    codes,
  );
}

/** The effect of a trade's numeric (Polygon.io / Massive) conditions (none: a regular sale). */
export function numericConditionsEffect(ids: readonly number[]): ConditionVerdict {
  return combine(
    ids.map((id) => byPolygon.get(id)),
    ids,
  );
}

/** The plan of an Alpaca tape letter: A and B are CTA's, C is UTP's. */
export function planOfTape(tape: string | undefined): Plan {
  return tape === 'C' ? 'utp' : 'cta';
}

/**
 * What goes on the trades stream for an effect: `full` (the trade counts fully), `volume-only` (it counts in
 * volume and sets no price, high or low: the record's `volumeOnly`), or `excluded` (it does not count in
 * volume: not put, counted by the connector with reason `condition`). The candle fold has no separate
 * high/low-only or open/close-only update, so a trade that may move only some prices counts in volume only:
 * the stricter reading, never a price the tape would not show.
 */
export type Counting = 'full' | 'volume-only' | 'excluded';

export function countingOf(effect: ConditionEffect): Counting {
  if (!effect.volume) return 'excluded';
  return effect.lastPrice && effect.highLow && effect.openClose ? 'full' : 'volume-only';
}

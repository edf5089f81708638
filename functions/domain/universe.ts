import { parse } from 'csv-parse/sync';
import * as z from 'zod';
import { type Instrument, instrumentSchema } from './instruments.ts';
import { normalizeSymbol } from './symbols.ts';

/** One row of data/universe.csv: the Instrument fields of spec 2.1 but `active`. */
const universeRowSchema = instrumentSchema.omit({ active: true });

/**
 * Parses the tracked universe (`symbol,name,market,exchange,type,sector`). Every listed instrument is
 * tracked, so `active` is true. A malformed row fails the whole file: a seed never half-applies.
 */
export function parseUniverseCsv(text: string): Instrument[] {
  const rows: unknown[] = parse(text, { columns: true, skip_empty_lines: true, trim: true });
  return rows.map((row, index) => {
    const parsed = universeRowSchema.safeParse(row);
    if (!parsed.success) {
      throw new Error(`universe row ${index + 2}: ${z.prettifyError(parsed.error)}`);
    }
    return { ...parsed.data, symbol: normalizeSymbol(parsed.data.symbol), active: true };
  });
}

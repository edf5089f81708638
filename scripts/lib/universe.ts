import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import * as z from 'zod/mini';
import { type Instrument, instrumentSchema } from '#domain/market-data/instruments';
import type { InstrumentCatalog } from '#domain/market-data/ports';
import { normalizeSymbol } from '#domain/market-data/symbols';
import { UNIVERSE_CSV } from './project.ts';

/**
 * One row of data/universe.csv: the fields of an instrument (docs/partner-guide.md#instrument) but `active`.
 */
const universeRowSchema = z.omit(instrumentSchema, { active: true });

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

/** Loads the tracked universe (data/universe.csv) into a catalog; rows already there are overwritten. */
export async function seedUniverse(
  catalog: InstrumentCatalog,
  csvPath = UNIVERSE_CSV,
): Promise<Instrument[]> {
  const instruments = parseUniverseCsv(await readFile(csvPath, 'utf8'));
  await catalog.putAll(instruments);
  return instruments;
}

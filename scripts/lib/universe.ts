import { readFile } from 'node:fs/promises';
import type { Instrument } from '#domain/instruments';
import { parseUniverseCsv } from '#domain/universe';
import type { InstrumentCatalog } from '#ports/instrument-catalog';
import { UNIVERSE_CSV } from './project.ts';

/** Loads the tracked universe (data/universe.csv) into a catalog; rows already there are overwritten. */
export async function seedUniverse(
  catalog: InstrumentCatalog,
  csvPath = UNIVERSE_CSV,
): Promise<Instrument[]> {
  const instruments = parseUniverseCsv(await readFile(csvPath, 'utf8'));
  await catalog.putAll(instruments);
  return instruments;
}

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#lib/project-root';

/**
 * The per-unit figures the benchmarks count (write units per trade batch, per alert, per push), kept in a
 * committed JSON that `npm run cost` reads (scripts/cost.ts): each benchmark run rewrites its own section.
 */
export const MEASURED_UNITS_FILE = join(PROJECT_ROOT, 'scripts/cost/measured-units.json');

export async function recordMeasuredUnits(section: string, figures: Record<string, unknown>): Promise<void> {
  let current: Record<string, unknown> = {};
  try {
    current = JSON.parse(await readFile(MEASURED_UNITS_FILE, 'utf8')) as Record<string, unknown>;
  } catch {
    // No file yet: this run writes the first section.
  }
  const previous = (current[section] ?? {}) as Record<string, unknown>;
  current[section] = { ...previous, ...figures, measuredAt: new Date().toISOString() };
  await writeFile(MEASURED_UNITS_FILE, `${JSON.stringify(current, null, 2)}\n`);
}

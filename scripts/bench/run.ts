/**
 * `npm run bench [-- name ...]`: the benchmarks, one after the other on this machine, printed as Markdown
 * tables (the figures quoted in docs/benchmarks.md). Names: aggregation, strat, rest, pipeline (and the modules added by later work).
 */
import { benchAggregation } from './aggregation.ts';
import { benchPipeline } from './pipeline.ts';
import { benchRest } from './rest.ts';
import { benchStrat } from './strat.ts';
import type { BenchResult } from './types.ts';

const BENCHES: Record<string, () => Promise<BenchResult[]>> = {
  aggregation: benchAggregation,
  strat: benchStrat,
  rest: benchRest,
  pipeline: benchPipeline,
};

function table(results: readonly BenchResult[]): string {
  const lines: string[] = [];
  for (const result of results) {
    lines.push(`\n### ${result.name}\n`, '| figure | value |', '|---|---|');
    for (const [figure, value] of Object.entries(result.figures)) lines.push(`| ${figure} | ${value} |`);
  }
  return lines.join('\n');
}

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  process.stderr.write(
    `bench: unknown benchmark(s) ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}\n`,
  );
  process.exit(2);
}
const names = requested.length > 0 ? requested : Object.keys(BENCHES);
process.stdout.write(
  `# Benchmarks (${new Date().toISOString()}, Node ${process.version}, ${names.join(', ')})\n`,
);
for (const name of names) {
  const bench = BENCHES[name];
  if (bench) process.stdout.write(`${table(await bench())}\n`);
}
process.exit(0);

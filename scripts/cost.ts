/**
 * `npm run cost -- --symbols N --trades-per-day M --partners P --symbols-per-partner S [--design deployed|on-demand|lambda]
 *  [--partner-change-share F] [--batched-share F] [--ingest-seconds T]`:
 * a trading day's AWS cost by part (docs/storage.md#a-trading-day-on-paper), from the write units the
 * benchmarks counted (scripts/cost/measured-units.json) and AWS list prices (scripts/lib/cost-model.ts). The
 * last line is the total. `deployed` prices the stack as `cdk deploy` builds it by default, with the windowed
 * ingest consumer of docs/adr/0026-long-running-ingest-consumer.md; `--design on-demand` the stack deployed
 * with `-c sessionCapacity=false` (every table on demand, docs/adr/0021-cost-levers.md); `--design lambda`
 * the stack deployed with `-c ingest=lambda`, the ingest Lambda reading a batch per shard.
 * `--batched-share` is the share of partners taking their quotes batched (docs/websocket.md#batched-quotes),
 * 0 unless given. `--ingest-seconds`, with `--design lambda` only, is how long an invocation of the ingest
 * takes, which a shard's batch spans (0.3 unless given): the Lambda's lever between latency and cost
 * (docs/benchmarks.md#the-latency-budget-hop-by-hop).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { MEASURED_UNITS_FILE } from './bench/measured-units.ts';
import { answerHelp, exitWith, UsageError } from './lib/cli.ts';
import { DESIGNS, type Design, dayCost, type MeasuredUnits, total } from './lib/cost-model.ts';

answerHelp(import.meta.url);

/** The number `--<name>` gives, when `valid`; otherwise a usage error saying what it must be. */
function numberOption(
  values: Record<string, string | boolean | undefined>,
  name: string,
  valid: (value: number) => boolean,
  expected: string,
): number {
  const value = Number(values[name]);
  if (typeof values[name] !== 'string' || !Number.isFinite(value) || !valid(value))
    throw new UsageError(`--${name} must be ${expected}`);
  return value;
}

const positive = (values: Record<string, string | boolean | undefined>, name: string) =>
  numberOption(values, name, (value) => value > 0, 'a positive number');
const share = (values: Record<string, string | boolean | undefined>, name: string) =>
  numberOption(values, name, (value) => value >= 0 && value <= 1, 'a number from 0 to 1');

const dollars = (value: number) => `$${value.toFixed(2)}`;

try {
  const { values } = parseArgs({
    options: {
      symbols: { type: 'string' },
      'trades-per-day': { type: 'string' },
      partners: { type: 'string' },
      'symbols-per-partner': { type: 'string' },
      design: { type: 'string', default: 'deployed' },
      'partner-change-share': { type: 'string' },
      'batched-share': { type: 'string' },
      'ingest-seconds': { type: 'string' },
    },
  });
  const named: Design | undefined = DESIGNS[(values.design ?? '') as keyof typeof DESIGNS];
  if (!named) throw new UsageError(`--design must be one of ${Object.keys(DESIGNS).join(', ')}`);
  if (values['ingest-seconds'] !== undefined && named.ingest !== 'lambda') {
    throw new UsageError('--ingest-seconds prices the ingest Lambda’s invocations: it needs --design lambda');
  }
  const design: Design =
    values['ingest-seconds'] === undefined
      ? named
      : { ...named, ingestSeconds: positive(values, 'ingest-seconds') };
  const market = {
    symbols: positive(values, 'symbols'),
    tradesPerDay: positive(values, 'trades-per-day'),
    partners: positive(values, 'partners'),
    symbolsPerPartner: positive(values, 'symbols-per-partner'),
    ...(values['partner-change-share'] === undefined
      ? {}
      : { partnerChangeShare: Math.min(1, positive(values, 'partner-change-share')) }),
    ...(values['batched-share'] === undefined ? {} : { batchedShare: share(values, 'batched-share') }),
  };
  const units = JSON.parse(readFileSync(MEASURED_UNITS_FILE, 'utf8')) as MeasuredUnits;
  const lines = dayCost(market, units, design);
  const width = Math.max(...lines.map((line) => line.part.length));
  const volumeWidth = Math.max(...lines.map((line) => line.volume.length));
  const out: string[] = [
    `A trading day (design: ${values.design}): ${market.symbols} symbols, ${market.tradesPerDay} trades, ` +
      `${market.partners} partners × ${market.symbolsPerPartner} symbols`,
  ];
  for (const group of ['ingest', 'fan-out', 'storage'] as const) {
    out.push('', `${group}`);
    for (const line of lines.filter((entry) => entry.group === group))
      out.push(
        `  ${line.part.padEnd(width)}  ${line.volume.padEnd(volumeWidth)}  ${dollars(line.dollars).padStart(9)}`,
      );
    out.push(
      `  ${`${group} in all`.padEnd(width + volumeWidth + 2)}  ${dollars(total(lines, group)).padStart(9)}`,
    );
  }
  out.push('', `total per trading day: ${dollars(total(lines))}`);
  process.stdout.write(`${out.join('\n')}\n`);
} catch (error) {
  exitWith('cost', error);
}

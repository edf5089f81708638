/**
 * `npm run backfill -- --file F --interval 1d|1m [--stack NAME [--region R]]`: imports a vendor's bar file
 * into the running local stack or a deployed stack (docs/backfill.md). The whole file is checked first; a
 * refused file writes nothing. Bars are written directly (BatchWriteItem, in parallel), never through the
 * trade stream; each symbol's ledger, latest price and Strat state are rebuilt; no alert or break fires.
 *
 *   --file F            CSV with a header: time,symbol,open,high,low,close,volume (any order, any case)
 *   --interval 1d|1m    1d: time is the session date YYYY-MM-DD; 1m: the minute's start (ISO 8601 or Unix s)
 *   --stack NAME        a deployed stack (default AWS credentials) [--region R]; default: the local stack
 *   --endpoint URL      the local DynamoDB endpoint (default: the running local stack's)
 *   --data-dir D        the local stack's data folder (default .data)
 *   --now ISO           the service clock (default: the local stack's clock, else the wall clock)
 *   --concurrency N     symbols imported at once (default 4)
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { BAR_FILE_INTERVALS, BarFileError, type BarFileInterval } from '#domain/market-data/bar-file';
import { ProgressReporter } from './lib/backfill-progress.ts';
import { answerHelp, exitWith, UsageError } from './lib/cli.ts';
import { importBarText } from './lib/history-import.ts';
import { DEFAULT_DATA_DIR } from './lib/project.ts';
import { resolveTarget, runningLocalStack, TARGET_ARGS } from './lib/target.ts';
import { virtualTime } from './lib/virtual-clock.ts';

answerHelp(import.meta.url);

const USAGE =
  'usage: npm run backfill -- --file F --interval 1d|1m [--stack NAME [--region R]] [--now ISO] [--concurrency N]';

/** The service clock: --now, else the local stack's virtual clock, else the wall clock. */
async function serviceClock(now: string | undefined, stack: string | undefined, dataDir: string) {
  if (now !== undefined) {
    const fixed = Date.parse(now);
    if (!Number.isFinite(fixed)) throw new UsageError(`--now ${now} is not an ISO 8601 time\n${USAGE}`);
    return () => fixed;
  }
  const clock = stack ? undefined : (await runningLocalStack(dataDir))?.clock;
  if (clock === undefined) return Date.now;
  const settings = { start: new Date(clock.start), anchorMs: clock.anchorMs, speed: clock.speed };
  return () => virtualTime(settings, Date.now()).getTime();
}

try {
  const { values } = parseArgs({
    options: {
      ...TARGET_ARGS,
      file: { type: 'string' },
      interval: { type: 'string' },
      now: { type: 'string' },
      concurrency: { type: 'string', default: '4' },
    },
  });
  if (!values.file) throw new UsageError(`--file is required\n${USAGE}`);
  const interval = values.interval as BarFileInterval;
  if (!BAR_FILE_INTERVALS.includes(interval)) {
    throw new UsageError(`--interval must be 1d or 1m (got ${values.interval ?? 'nothing'})\n${USAGE}`);
  }
  const concurrency = Number(values.concurrency);
  if (!(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 64)) {
    throw new UsageError(`--concurrency must be a whole number from 1 to 64\n${USAGE}`);
  }
  const dataDir = values['data-dir'] ?? DEFAULT_DATA_DIR;
  const nowMs = await serviceClock(values.now, values.stack, dataDir);
  const text = await readFile(values.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${values.file}: ${error.code ?? error.message}`);
  });
  const target = await resolveTarget({
    stack: values.stack,
    region: values.region,
    endpoint: values.endpoint,
    dataDir,
  });

  const started = Date.now();
  const progress = new ProgressReporter(process.stderr);
  let totalRows = 0;
  let totalSymbols = 0;
  let rows = 0;
  let symbols = 0;
  const { file, outcome } = await importBarText(text, interval, target, {
    nowMs,
    concurrency,
    onChecked: (checked) => {
      totalSymbols = checked.bars.size;
      for (const series of checked.bars.values()) totalRows += series.length;
      process.stdout.write(
        `Checked ${values.file}: ${checked.rows.toLocaleString('en-US')} rows, ${totalSymbols} symbols` +
          (checked.ignored.outsideSession > 0
            ? `, ${checked.ignored.outsideSession} rows outside the regular session ignored`
            : '') +
          (checked.extraColumns.length > 0 ? `, columns ignored: ${checked.extraColumns.join(', ')}` : '') +
          `; importing into ${target.description}\n`,
      );
      progress.update({ rows, totalRows, symbols, totalSymbols, elapsedMs: 0 });
    },
    onSymbol: (done) => {
      rows += done.rows;
      symbols++;
      progress.update({ rows, totalRows, symbols, totalSymbols, elapsedMs: Date.now() - started });
    },
  });
  const seconds = (Date.now() - started) / 1000;
  const { added, unchanged, kept } = outcome.sessions;
  process.stdout.write(
    `${[
      `Imported ${file.interval} bars of ${outcome.symbols} symbols in ${seconds.toFixed(1)} s ` +
        `(${Math.round(outcome.rows / Math.max(seconds, 0.001)).toLocaleString('en-US')} rows/s): ` +
        `${outcome.barsWritten.toLocaleString('en-US')} bars written, ${outcome.ledgersWritten} ledgers and ` +
        `${outcome.statesChanged} Strat states updated, no alert fired.`,
      `Sessions: ${added} added, ${unchanged} already there, ${kept} kept as the service has them.`,
      ...outcome.keptSessions.slice(0, 20).map(({ symbol, date }) => `  kept: ${symbol} ${date}`),
      ...(outcome.keptSessions.length > 20 ? [`  ... and ${outcome.keptSessions.length - 20} more`] : []),
    ].join('\n')}\n`,
  );
} catch (error) {
  exitWith('backfill', error instanceof BarFileError ? new UsageError(error.message) : error);
}

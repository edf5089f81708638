/**
 * NYSE sessions as CSV, one line per session: `date,open,close`, open and close as UTC instants.
 *
 *   npm run calendar -- --from 2025-01-01 --to 2025-12-31 [--header]
 *
 * Bad or missing arguments, or dates outside 1990-01-01 .. 2099-12-31: one line on stderr, exit code 2.
 * The calendar itself lives in functions/domain/calendar/sessions.ts; this file only parses and prints.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type Session, sessionsBetween } from '#domain/calendar/sessions';
import { formatUtcIso } from '#domain/calendar/time-zone';
import { answerHelp } from './lib/cli.ts';

export const CSV_HEADER = 'date,open,close';

const USAGE = 'usage: npm run calendar -- --from YYYY-MM-DD --to YYYY-MM-DD [--header]';

const EXIT_USAGE = 2;
const EXIT_FAILURE = 1;

export interface CalendarArgs {
  readonly from: string;
  readonly to: string;
  readonly header: boolean;
}

/** A bad command line: reported in one line with exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `2024-11-29,2024-11-29T14:30:00Z,2024-11-29T18:00:00Z` */
export function sessionCsvLine(session: Session): string {
  return `${session.date},${formatUtcIso(session.open)},${formatUtcIso(session.close)}`;
}

/** The CSV document: optional header, then one line per session, each ending in a newline. */
export function sessionsCsv(sessions: readonly Session[], header: boolean): string {
  const lines = sessions.map(sessionCsvLine);
  if (header) lines.unshift(CSV_HEADER);
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function parseCalendarArgs(argv: readonly string[]): CalendarArgs {
  let values: { from?: string; to?: string; header?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        header: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.from === undefined) throw new UsageError('missing --from YYYY-MM-DD');
  if (values.to === undefined) throw new UsageError('missing --to YYYY-MM-DD');
  return { from: values.from, to: values.to, header: values.header === true };
}

/** Runs the CLI: the CSV, or throws UsageError / RangeError for bad input. */
export function runCalendar(argv: readonly string[]): string {
  const args = parseCalendarArgs(argv);
  return sessionsCsv(sessionsBetween(args.from, args.to), args.header);
}

function exitCodeOf(error: unknown): number {
  return error instanceof UsageError || error instanceof RangeError ? EXIT_USAGE : EXIT_FAILURE;
}

function main(): void {
  try {
    process.stdout.write(runCalendar(process.argv.slice(2)));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = exitCodeOf(error);
    const hint = code === EXIT_USAGE ? ` (${USAGE})` : '';
    process.stderr.write(`calendar: ${message.split('\n')[0]}${hint}\n`);
    process.exitCode = code;
  }
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  return script !== undefined && import.meta.url === pathToFileURL(script).href;
}

if (isEntryPoint()) {
  answerHelp(import.meta.url);
  main();
}

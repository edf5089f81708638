/**
 * The progress of `npm run backfill` (docs/backfill.md): rows and symbols done, the pace and about
 * how long is left. On a terminal one bar redrawn in place; otherwise (a log, CI) a line at most every few
 * seconds, and always the last one.
 */

export interface ImportProgress {
  readonly rows: number;
  readonly totalRows: number;
  readonly symbols: number;
  readonly totalSymbols: number;
  readonly elapsedMs: number;
}

const BAR_WIDTH = 24;
const LINE_EVERY_MS = 5_000;

function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

const count = (value: number) => value.toLocaleString('en-US');

/** One line: `[#####-----] 45% 585,000/1,300,000 rows, 225/500 symbols, 9,750 rows/s, about 1 min 13 s left`. */
export function progressLine(progress: ImportProgress, withBar: boolean): string {
  const { rows, totalRows, symbols, totalSymbols, elapsedMs } = progress;
  const share = totalRows === 0 ? 1 : rows / totalRows;
  const filled = Math.round(share * BAR_WIDTH);
  const bar = withBar ? `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ` : '';
  const pace = elapsedMs > 0 ? Math.round((rows / elapsedMs) * 1000) : 0;
  const left =
    rows >= totalRows
      ? 'done'
      : rows === 0
        ? 'estimating'
        : `about ${duration((elapsedMs / rows) * (totalRows - rows))} left`;
  return `${bar}${Math.floor(share * 100)}% ${count(rows)}/${count(totalRows)} rows, ${count(symbols)}/${count(totalSymbols)} symbols, ${count(pace)} rows/s, ${left}`;
}

/** Reports progress to a stream: redraws on a TTY, prints a line every few seconds elsewhere. */
export class ProgressReporter {
  private lastLineMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly stream: { readonly isTTY?: boolean; write(text: string): unknown },
    private readonly nowMs: () => number = Date.now,
  ) {}

  update(progress: ImportProgress): void {
    const done = progress.rows >= progress.totalRows;
    if (this.stream.isTTY) {
      this.stream.write(`\r${progressLine(progress, true)}\u001b[K${done ? '\n' : ''}`);
      return;
    }
    const now = this.nowMs();
    if (!done && now - this.lastLineMs < LINE_EVERY_MS) return;
    this.lastLineMs = now;
    this.stream.write(`${progressLine(progress, false)}\n`);
  }
}

export interface BenchResult {
  readonly name: string;
  readonly figures: Readonly<Record<string, number | string>>;
  /** A row per measured item (every row with the same columns), printed as a table after the figures. */
  readonly rows?: readonly Readonly<Record<string, number | string>>[];
}

/** A benchmark; `options` are the command-line arguments given after the benchmark names. */
export type Bench = (options: readonly string[]) => Promise<BenchResult[]>;

export interface BenchResult {
  readonly name: string;
  readonly figures: Readonly<Record<string, number | string>>;
}

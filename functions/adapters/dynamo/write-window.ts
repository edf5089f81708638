/**
 * Writes gathered over a short window and sent together, at most `maxBatch` to a call: each `add` resolves
 * once the call that carried it succeeded, and rejects with that call's error. Written here rather than taken
 * from DataLoader because the ledger store that uses it is in REST bundles, which stay within 300 KB
 * (docs/adr/0013-lean-lambda-bundles.md).
 */
export class WriteWindow<Item> {
  private pending: { item: Item; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly write: (items: readonly Item[]) => Promise<void>,
    private readonly options: { readonly windowMs: number; readonly maxBatch: number },
  ) {}

  add(item: Item): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= this.options.maxBatch) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.options.windowMs);
    });
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    this.write(batch.map(({ item }) => item)).then(
      () => {
        for (const entry of batch) entry.resolve();
      },
      (error: unknown) => {
        for (const entry of batch) entry.reject(error);
      },
    );
  }
}

import { foldTrades, type Trade } from '#domain/aggregation';
import { sessionOn } from '#domain/calendar';

const s = sessionOn('2024-05-31')!;
const open = s.open.getTime();
const base = foldTrades(undefined, 'A', [
  { symbol: 'A', price: 100.5, size: 3, timestamp: open, tradeId: '0' },
]).ledger;
const one: Trade[] = [{ symbol: 'A', price: 100.25, size: 3, timestamp: open + 5, tradeId: '1' }];
let x = 0;
for (const [label, trades] of [
  ['empty', []],
  ['one', one],
] as const) {
  for (let r = 0; r < 20000; r++) x += foldTrades(base, 'A', trades).applied;
  const N = 200000;
  const t = process.hrtime.bigint();
  for (let r = 0; r < N; r++) x += foldTrades(base, 'A', trades).applied;
  const dt = Number(process.hrtime.bigint() - t) / 1e9;
  console.log(label, 'ns/call', (dt / N) * 1e9);
}

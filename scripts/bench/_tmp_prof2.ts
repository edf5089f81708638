import { foldTrades, type Trade } from '#domain/aggregation';
import { sessionOn } from '#domain/calendar';

const s = sessionOn('2024-05-31')!;
const open = s.open.getTime();
const trades: Trade[] = [];
for (let k = 0; k < 250; k++)
  trades.push({
    symbol: 'A',
    price: 100 + Math.random(),
    size: 1 + ((Math.random() * 100) | 0),
    timestamp: open + 1000 + k * 100,
    tradeId: k.toString(36).padStart(8, '0'),
  });
const base = foldTrades(undefined, 'A', [{ ...trades[0]!, timestamp: open, tradeId: '0' }]).ledger;
let x = 0;
for (let r = 0; r < 2000; r++) x += foldTrades(base, 'A', trades).applied;
const N = 20000;
const t = process.hrtime.bigint();
for (let r = 0; r < N; r++) x += foldTrades(base, 'A', trades).applied;
const dt = Number(process.hrtime.bigint() - t) / 1e9;
console.log('fast path ns/trade', (dt / (N * 250)) * 1e9, x);

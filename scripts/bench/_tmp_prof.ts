import { foldTrades, type SymbolLedger, type Trade } from '#domain/aggregation';
import { sessionOn } from '#domain/calendar';

const s = sessionOn('2024-05-31')!;
const open = s.open.getTime(),
  close = s.close.getTime();
const symbols = 100,
  per = 10000;
const batches: { i: number; sym: string; trades: Trade[] }[] = [];
const all: Trade[][] = [];
for (let i = 0; i < symbols; i++) {
  const sym = `S${i}`;
  const ts: Trade[] = [];
  for (let k = 0; k < per; k++)
    ts.push({
      symbol: sym,
      price: 100 + Math.random(),
      size: 1 + ((Math.random() * 100) | 0),
      timestamp: open + Math.floor((k / per) * (close - open)),
      tradeId: k.toString(36).padStart(8, '0'),
    });
  all.push(ts);
}
for (let off = 0; off < per; off += 250)
  for (let i = 0; i < symbols; i++) batches.push({ i, sym: `S${i}`, trades: all[i]!.slice(off, off + 250) });
function run() {
  const l: (SymbolLedger | undefined)[] = [];
  for (const b of batches) l[b.i] = foldTrades(l[b.i], b.sym, b.trades).ledger;
}
for (let r = 0; r < 3; r++) run();
const t = process.hrtime.bigint();
for (let r = 0; r < 10; r++) run();
const dt = Number(process.hrtime.bigint() - t) / 1e9;
console.log('ns/trade', (dt / (10 * symbols * per)) * 1e9);

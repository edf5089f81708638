import { describe, expect, it } from 'vitest';
import type { TradeAmendment } from '#domain/market-data/bars';
import { ITEMS_PER_COMMIT, ingestTrades } from '#use-cases/ingest-trades';
import { perTestTradeIds, trade } from '../../support/builders.ts';
import { inMemoryIngestPorts, RecordingQuotes } from '../../support/fakes.ts';

/** Tuesday 2024-11-26, open 14:30Z. */
const open = Date.parse('2024-11-26T14:30:00Z');
const ids = perTestTradeIds({ prefix: 't', width: 5 });

function setUp() {
  const quotes = new RecordingQuotes();
  const ports = { ...inMemoryIngestPorts(), quotes };
  return { ports, quotes };
}

describe('ingestTrades: the quotes of its commits (docs/adr/0024-quotes-posted-by-the-ingest.md)', () => {
  it('publishes one move per commit that moved a price: the batch’s last sale, at the commit’s version', async () => {
    const { ports, quotes } = setUp();

    await ingestTrades(
      [
        trade(open, 190, { ids }),
        trade(open, 410, { symbol: 'MSFT', ids }),
        trade(open + 1_000, 191, { size: 7, ids }),
      ],
      ports,
    );

    expect(quotes.calls).toHaveLength(1);
    expect(quotes.moves).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ symbol: 'AAPL', price: 191, volume: 7, version: 0 }),
        expect.objectContaining({ symbol: 'MSFT', price: 410, version: 0 }),
      ]),
    );
    expect(quotes.moves).toHaveLength(2);
  });

  it('prepares the lookups of the symbols whose folds moved a price before it commits them', async () => {
    const { ports, quotes } = setUp();
    await ingestTrades([trade(open + 2_000, 190, { ids })], ports);
    const commits: string[] = [];
    const put = ports.ledgers.put.bind(ports.ledgers);
    ports.ledgers.put = async (ledger, previous, pending) => {
      commits.push(`${ledger.symbol} after ${quotes.prepared.length} prepared`);
      return put(ledger, previous, pending);
    };

    // AAPL's late print moves no price; MSFT's first sale does.
    await ingestTrades([trade(open + 1_000, 189, { ids }), trade(open, 410, { symbol: 'MSFT', ids })], ports);

    expect(quotes.prepared.at(-1)).toEqual(['MSFT']);
    expect(commits).toEqual(['AAPL after 2 prepared', 'MSFT after 2 prepared']);
  });

  it('publishes nothing for a commit that left the price as it was (a late print folded into the bars)', async () => {
    const { ports, quotes } = setUp();
    await ingestTrades([trade(open + 2_000, 190, { ids })], ports);

    const outcome = await ingestTrades([trade(open + 1_000, 189, { ids })], ports);

    expect(outcome.latePrints).toBe(1);
    expect(quotes.moves.map(({ version }) => version)).toEqual([0]);
  });

  it('publishes the restated price when the last trade is cancelled', async () => {
    const { ports, quotes } = setUp();
    const last = trade(open + 1_000, 195, { ids });
    await ingestTrades([trade(open, 190, { ids }), last], ports);
    const cancel: TradeAmendment = { symbol: 'AAPL', amends: last.tradeId, timestamp: last.timestamp };

    await ingestTrades([cancel], ports);

    expect(quotes.moves.map(({ price, version }) => [price, version])).toEqual([
      [195, 0],
      [190, 1],
    ]);
  });

  it('publishes a symbol’s commits in order when a batch needs several of them', async () => {
    const { ports, quotes } = setUp();
    const trades = Array.from({ length: ITEMS_PER_COMMIT + 5 }, (_, index) =>
      trade(open + index * 10, 100 + index / 100, { ids }),
    );

    await ingestTrades(trades, ports);

    expect(quotes.moves.map(({ version }) => version)).toEqual([0, 1]);
    expect(quotes.moves.at(-1)?.tradeId).toBe(trades.at(-1)?.tradeId);
  });

  it('publishes a recovered commit’s quote first when its batch is delivered again', async () => {
    const { ports, quotes } = setUp();
    const first = trade(open, 190, { ids });
    await ingestTrades([first], ports);

    await ingestTrades([first, trade(open + 1_000, 191, { ids })], ports);

    expect(quotes.calls.at(-1)?.map(({ price, version }) => [price, version])).toEqual([
      [190, 0],
      [191, 1],
    ]);
  });
});

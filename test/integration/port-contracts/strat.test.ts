import { describe, expect, it } from 'vitest';
import { DynamoEventFeed } from '#adapters/dynamo/event-feed';
import { DynamoSetupStore, DynamoStateStore } from '#adapters/dynamo/strat-state-stores';
import type {
  EventFeed,
  FeedEvent,
  FeedReadQuery,
  SetupStore,
  StateStore,
  StoredEvent,
  StoredState,
} from '#domain/strat/ports';
import type { SetupRow } from '#domain/strat/setups';
import { InMemoryEventFeed, InMemorySetupStore, InMemoryStateStore } from '../../support/fakes.ts';
import { usePortImplementations } from '../../support/port-contracts.ts';

/** The Strat's ports (functions/domain/strat/ports.ts): each fake against its DynamoDB adapter. */
const implementations = usePortImplementations();
const firstMs = Date.parse('2024-11-26T15:00:00Z');

interface Body {
  readonly n: number;
  readonly kind: string;
  readonly symbol?: string;
}

/** Event `n`: triggered `n` minutes after firstMs unless told, once key `e<n>`. */
function event(
  n: number,
  options: { symbol?: string; kind?: string; triggeredAtMs?: number } = {},
): FeedEvent<Body> {
  const kind = options.kind ?? 'common';
  return {
    onceKey: `e${n}`,
    triggeredAtMs: options.triggeredAtMs ?? firstMs + n * 60_000,
    ...(options.symbol === undefined ? {} : { symbol: options.symbol }),
    body: { n, kind, ...(options.symbol === undefined ? {} : { symbol: options.symbol }) },
  };
}

const ids = (events: readonly StoredEvent<Body>[]) => events.map(({ id }) => id);
const numbers = (events: readonly StoredEvent<Body>[]) => events.map(({ body }) => body.n);

function query(overrides: Partial<FeedReadQuery<Body>> = {}): FeedReadQuery<Body> {
  return { fromMs: 0, limit: 100, accept: () => true, maxExamined: 1_000, ...overrides };
}

describe.each(
  implementations<EventFeed<Body>>(
    () => new InMemoryEventFeed<Body>(),
    async ({ client, table }) =>
      new DynamoEventFeed<Body>(
        client,
        { feed: await table('alerts'), guards: await table('eventGuards') },
        'contract',
      ),
  ),
)('EventFeed: $name', ({ create }) => {
  it('is empty before its first append: head 0, nothing to read', async () => {
    const feed = await create();
    expect(await feed.head()).toBe(0);
    expect(await feed.read(query())).toEqual({ events: [] });
    expect(await feed.readBySymbol('AAPL', 0, Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it('gives appended events gapless ids in append order, across appends; head is the last', async () => {
    const feed = await create();
    expect(await feed.append([event(1), event(2), event(3)])).toBe(3);
    expect(await feed.append([])).toBe(0);
    expect(await feed.append([event(4), event(5)])).toBe(2);
    expect(await feed.head()).toBe(5);
    const page = await feed.read(query());
    expect(page.events).toEqual(
      [1, 2, 3, 4, 5].map((n) => ({ id: n, triggeredAtMs: event(n).triggeredAtMs, body: event(n).body })),
    );
    expect(page.lastExaminedId).toBe(5);
  });

  it('appends an event once per once key: again, in a later append, or twice in one', async () => {
    const feed = await create();
    await feed.append([event(1), event(2)]);
    expect(await feed.append([event(2), event(1)])).toBe(0);
    expect(await feed.append([event(3), event(1), event(4), event(3)])).toBe(2);
    expect(await feed.head()).toBe(4);
    const page = await feed.read(query());
    expect(ids(page.events)).toEqual([1, 2, 3, 4]);
    expect(numbers(page.events)).toEqual([1, 2, 3, 4]);
  });

  it('appends a marked event once: again after its mark, in any grouping, it is found (madeAfterId)', async () => {
    const feed = await create();
    const marked = (n: number, madeAfterId: number) => ({ ...event(n), madeAfterId });
    expect(await feed.append([marked(1, 0), marked(2, 0)])).toBe(2);
    expect(await feed.append([marked(3, 2)])).toBe(1);
    // A redelivery groups the commits otherwise: each event is found after its own mark.
    expect(await feed.append([marked(3, 2), marked(2, 0), marked(4, 3)])).toBe(1);
    expect(await feed.append([marked(4, 3), marked(1, 0), marked(3, 2)])).toBe(0);
    expect(await feed.head()).toBe(4);
    expect(numbers((await feed.read(query())).events)).toEqual([1, 2, 3, 4]);
  });

  it('reads after `sinceId`, at most `limit` accepted events, and says where it stopped', async () => {
    const feed = await create();
    await feed.append(Array.from({ length: 10 }, (_, n) => event(n + 1)));
    expect(await feed.read(query({ sinceId: 3, limit: 4 }))).toMatchObject({ lastExaminedId: 7 });
    expect(ids((await feed.read(query({ sinceId: 3, limit: 4 }))).events)).toEqual([4, 5, 6, 7]);
    const odd = await feed.read(query({ sinceId: 2, limit: 2, accept: ({ body }) => body.n % 2 === 1 }));
    expect(ids(odd.events)).toEqual([3, 5]);
    expect(odd.lastExaminedId).toBe(5);
    expect(await feed.read(query({ sinceId: 10 }))).toEqual({ events: [] });
    expect(await feed.read(query({ sinceId: 50 }))).toEqual({ events: [] });
  });

  it('reads the window from `fromMs` on, and the later of the window and `sinceId`', async () => {
    const feed = await create();
    await feed.append(Array.from({ length: 10 }, (_, n) => event(n + 1)));
    const fromSixth = event(6).triggeredAtMs;
    expect(ids((await feed.read(query({ fromMs: fromSixth }))).events)).toEqual([6, 7, 8, 9, 10]);
    expect(ids((await feed.read(query({ fromMs: fromSixth - 1 }))).events)).toEqual([6, 7, 8, 9, 10]);
    expect(ids((await feed.read(query({ fromMs: fromSixth, sinceId: 2 }))).events)).toEqual([6, 7, 8, 9, 10]);
    expect(ids((await feed.read(query({ fromMs: fromSixth, sinceId: 8 }))).events)).toEqual([9, 10]);
    expect(await feed.read(query({ fromMs: event(11).triggeredAtMs }))).toEqual({ events: [] });
  });

  it('leaves out an event committed inside the window yet triggered before it', async () => {
    const feed = await create();
    await feed.append([event(1), event(2), event(3, { triggeredAtMs: firstMs }), event(4)]);
    expect(ids((await feed.read(query({ fromMs: event(2).triggeredAtMs }))).events)).toEqual([2, 4]);
  });

  it('examines at most `maxExamined` events, accepted or not, and says which it examined last', async () => {
    const feed = await create();
    await feed.append(Array.from({ length: 10 }, (_, n) => event(n + 1)));
    expect(await feed.read(query({ maxExamined: 4, accept: () => false }))).toEqual({
      events: [],
      lastExaminedId: 4,
    });
    const page = await feed.read(query({ sinceId: 4, maxExamined: 3, accept: ({ body }) => body.n !== 6 }));
    expect(ids(page.events)).toEqual([5, 7]);
    expect(page.lastExaminedId).toBe(7);
  });

  it('reads on past a storage page until `limit`, `maxExamined` or the feed’s end', async () => {
    const feed = await create();
    await feed.append(Array.from({ length: 600 }, (_, n) => event(n + 1)));
    const last = await feed.read(query({ maxExamined: 2_000, accept: ({ body }) => body.n % 300 === 0 }));
    expect(last).toEqual({
      events: [300, 600].map((n) => ({
        id: n,
        triggeredAtMs: event(n).triggeredAtMs,
        body: event(n).body,
      })),
      lastExaminedId: 600,
    });
    expect(await feed.read(query({ maxExamined: 550, accept: () => false }))).toEqual({
      events: [],
      lastExaminedId: 550,
    });
    const page = await feed.read(query({ sinceId: 450, limit: 100 }));
    expect(ids(page.events)).toEqual(Array.from({ length: 100 }, (_, n) => 451 + n));
    expect(page.lastExaminedId).toBe(550);
  });

  it('appends an event named twice in one call once, as it first comes', async () => {
    const feed = await create();
    expect(await feed.append([event(1, { kind: 'first' }), event(1, { kind: 'second' })])).toBe(1);
    expect((await feed.read(query())).events.map(({ body }) => body.kind)).toEqual(['first']);
  });

  it('reads with `bodyMatch` what `accept` alone would give', async () => {
    const feed = await create();
    await feed.append(
      Array.from({ length: 12 }, (_, n) => event(n + 1, { kind: n % 3 === 0 ? 'rare' : 'common' })),
    );
    const rare = ({ body }: StoredEvent<Body>) => body.kind === 'rare';
    const page = await feed.read(query({ limit: 3, accept: rare, bodyMatch: { kind: ['rare'] } }));
    expect(ids(page.events)).toEqual([1, 4, 7]);
    expect(page.lastExaminedId).toBe(7);
    const rest = await feed.read(query({ sinceId: 7, accept: rare, bodyMatch: { kind: ['rare', 'other'] } }));
    expect(ids(rest.events)).toEqual([10]);
    // Examined through the last event, the two the filter left out after 10 included: the next poll starts there.
    expect(rest.lastExaminedId).toBe(12);
    const none = await feed.read(query({ accept: () => true, bodyMatch: { kind: ['none'], n: [1] } }));
    expect(none.events).toEqual([]);
  });

  it('reads a symbol’s events triggered in [fromMs, toMs], bounds included', async () => {
    const feed = await create();
    await feed.append([
      event(1, { symbol: 'AAPL' }),
      event(2, { symbol: 'MSFT' }),
      event(3, { symbol: 'AAPL' }),
      event(4),
      event(5, { symbol: 'AAPL' }),
    ]);
    const found = await feed.readBySymbol('AAPL', event(1).triggeredAtMs, event(3).triggeredAtMs);
    expect([...found].sort((a, b) => a.id - b.id)).toEqual([
      { id: 1, triggeredAtMs: event(1).triggeredAtMs, body: event(1, { symbol: 'AAPL' }).body },
      { id: 3, triggeredAtMs: event(3).triggeredAtMs, body: event(3, { symbol: 'AAPL' }).body },
    ]);
    expect(await feed.readBySymbol('AAPL', event(3).triggeredAtMs + 1, event(5).triggeredAtMs - 1)).toEqual(
      [],
    );
    expect(await feed.readBySymbol('NVDA', 0, Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it('gives concurrent appends distinct gapless ids, each event once', async () => {
    const feed = await create();
    const counts = await Promise.all([
      feed.append([event(1), event(2), event(3)]),
      feed.append([event(3), event(4), event(5)]),
    ]);
    expect(counts[0] + counts[1]).toBe(5);
    expect(await feed.head()).toBe(5);
    const page = await feed.read(query());
    expect(ids(page.events)).toEqual([1, 2, 3, 4, 5]);
    expect([...numbers(page.events)].sort()).toEqual([1, 2, 3, 4, 5]);
  });
});

function state(symbol: string, ledgerVersion: number | undefined, updatedAtMs: number): StoredState {
  return {
    symbol,
    updatedAtMs,
    ...(ledgerVersion === undefined ? {} : { ledgerVersion }),
    tfc: { D: 'green' },
    setups: [setupRow(symbol, 'D')],
  };
}

function setupRow(symbol: string, timeframe: SetupRow['timeframe'], shape = '1-2U'): SetupRow {
  return {
    symbol,
    timeframe,
    shape,
    in_force: true,
    p3: false,
    pmg: 3,
    continuation: false,
    sector: 'Energy',
  };
}

describe.each(
  implementations<StateStore>(
    () => new InMemoryStateStore(),
    async ({ client, table }) => new DynamoStateStore(client, await table('states')),
  ),
)('StateStore: $name', ({ create }) => {
  it('gives the stored states among the symbols asked for', async () => {
    const states = await create();
    await states.putNewer([state('AAPL', 1, firstMs), state('MSFT', 2, firstMs)]);
    const found = await states.getMany(['NVDA', 'AAPL', 'MSFT']);
    expect(new Map([...found].sort(([a], [b]) => a.localeCompare(b)))).toEqual(
      new Map([
        ['AAPL', state('AAPL', 1, firstMs)],
        ['MSFT', state('MSFT', 2, firstMs)],
      ]),
    );
    expect(await states.getMany([])).toEqual(new Map());
  });

  it('writes a state derived from a later ledger version, or the same one no earlier; returns those', async () => {
    const states = await create();
    await states.putNewer([state('AAPL', 5, firstMs), state('MSFT', 5, firstMs), state('NVDA', 5, firstMs)]);
    const written = await states.putNewer([
      state('AAPL', 6, firstMs - 1_000),
      state('MSFT', 5, firstMs),
      state('NVDA', 5, firstMs + 1),
    ]);
    expect(written).toEqual([
      state('AAPL', 6, firstMs - 1_000),
      state('MSFT', 5, firstMs),
      state('NVDA', 5, firstMs + 1),
    ]);
    expect((await states.getMany(['AAPL'])).get('AAPL')).toEqual(state('AAPL', 6, firstMs - 1_000));
  });

  it('never lets a state of an older ledger, or of the same one derived earlier, overwrite a newer one', async () => {
    const states = await create();
    await states.putNewer([state('AAPL', 5, firstMs), state('MSFT', 5, firstMs)]);
    const written = await states.putNewer([
      state('AAPL', 4, firstMs + 60_000),
      state('MSFT', 5, firstMs - 1),
      state('NVDA', 1, firstMs),
    ]);
    expect(written).toEqual([state('NVDA', 1, firstMs)]);
    const found = await states.getMany(['AAPL', 'MSFT']);
    expect(found.get('AAPL')).toEqual(state('AAPL', 5, firstMs));
    expect(found.get('MSFT')).toEqual(state('MSFT', 5, firstMs));
  });

  it('keeps the newest of two states of one symbol in one write, whatever their order', async () => {
    const states = await create();
    await states.putNewer([state('AAPL', 6, firstMs), state('AAPL', 5, firstMs + 1)]);
    await states.putNewer([state('MSFT', 5, firstMs), state('MSFT', 5, firstMs + 1)]);
    const found = await states.getMany(['AAPL', 'MSFT', 'AAPL']);
    expect(found.get('AAPL')).toEqual(state('AAPL', 6, firstMs));
    expect(found.get('MSFT')).toEqual(state('MSFT', 5, firstMs + 1));
  });

  it('replaces a state stored without a version, and refuses one without over one with', async () => {
    const states = await create();
    await states.putNewer([state('AAPL', undefined, firstMs), state('MSFT', 0, firstMs)]);
    expect(
      await states.putNewer([state('AAPL', 0, firstMs - 1), state('MSFT', undefined, firstMs + 1)]),
    ).toEqual([state('AAPL', 0, firstMs - 1)]);
    expect((await states.getMany(['MSFT'])).get('MSFT')).toEqual(state('MSFT', 0, firstMs));
  });
});

describe.each(
  implementations<SetupStore>(
    () => new InMemorySetupStore(),
    async ({ client, table }) => new DynamoSetupStore(client, await table('setups')),
  ),
)('SetupStore: $name', ({ create }) => {
  const symbols = ['MSFT', 'AAPL', 'NVDA', 'AMD', 'META'];
  const listed = (rows: SetupRow[]) => rows.map(({ symbol }) => symbol);

  it('lists a timeframe’s rows in symbol order, at most `limit`, only that timeframe', async () => {
    const setups = await create();
    await setups.write({
      put: [...symbols.map((symbol) => setupRow(symbol, 'D')), setupRow('AAPL', 'W'), setupRow('ZZZ', '60')],
      remove: [],
    });
    expect(await setups.list('D', 100)).toEqual(
      ['AAPL', 'AMD', 'META', 'MSFT', 'NVDA'].map((symbol) => setupRow(symbol, 'D')),
    );
    expect(listed(await setups.list('D', 2))).toEqual(['AAPL', 'AMD']);
    expect(await setups.list('W', 100)).toEqual([setupRow('AAPL', 'W')]);
    expect(await setups.list('Q', 100)).toEqual([]);
  });

  it('pages from a symbol, after it or from it', async () => {
    const setups = await create();
    await setups.write({ put: symbols.map((symbol) => setupRow(symbol, 'D')), remove: [] });
    expect(listed(await setups.list('D', 2, { symbol: 'AMD', inclusive: false }))).toEqual(['META', 'MSFT']);
    expect(listed(await setups.list('D', 2, { symbol: 'AMD', inclusive: true }))).toEqual(['AMD', 'META']);
    expect(listed(await setups.list('D', 10, { symbol: 'B', inclusive: true }))).toEqual([
      'META',
      'MSFT',
      'NVDA',
    ]);
    expect(await setups.list('D', 10, { symbol: 'NVDA', inclusive: false })).toEqual([]);
  });

  it('writes a row named twice in one write once: the last put, a remove named twice', async () => {
    const setups = await create();
    await setups.write({
      put: [setupRow('AAPL', 'D'), setupRow('AAPL', 'D', '2D-2U'), setupRow('MSFT', 'D')],
      remove: [],
    });
    await setups.write({
      put: [],
      remove: [
        { symbol: 'MSFT', timeframe: 'D' },
        { symbol: 'MSFT', timeframe: 'D' },
      ],
    });
    expect(await setups.list('D', 10)).toEqual([setupRow('AAPL', 'D', '2D-2U')]);
  });

  it('replaces a row put again and removes rows, a row that is gone too', async () => {
    const setups = await create();
    await setups.write({ put: symbols.map((symbol) => setupRow(symbol, 'D')), remove: [] });
    await setups.write({
      put: [setupRow('AAPL', 'D', '2D-2U')],
      remove: [
        { symbol: 'MSFT', timeframe: 'D' },
        { symbol: 'GOOG', timeframe: 'D' },
        { symbol: 'AMD', timeframe: 'W' },
      ],
    });
    await setups.write({ put: [], remove: [] });
    expect(await setups.list('D', 100)).toEqual([
      setupRow('AAPL', 'D', '2D-2U'),
      setupRow('AMD', 'D'),
      setupRow('META', 'D'),
      setupRow('NVDA', 'D'),
    ]);
  });
});

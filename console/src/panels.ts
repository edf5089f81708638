import { TIMEFRAMES } from '#domain/strat/timeframes';
import { feedIndex, formatPrice, type ServiceClock } from './console-model.ts';
import { h, newYorkTime } from './dom.ts';
import type { InForceAlert, MarketStatus, SetupRow, SimultaneousBreak, StateSnapshot } from './types.ts';

/** The market status in the top bar (docs/partner-guide.md#market-status). */
export function renderMarketStatus(target: HTMLElement, status: MarketStatus): void {
  const session = status.is_open
    ? `${status.session.label} ${status.session.session_date}, closes ${newYorkTime(status.session.close_ts)} ET`
    : 'no regular session now';
  target.replaceChildren(
    h(
      'span',
      { class: `pill ${status.is_open ? 'open' : 'closed'}` },
      status.is_open ? 'Market open' : 'Market closed',
    ),
    h('span', {}, session),
    h('span', { id: 'new-york-clock' }, `New York ${newYorkTime(status.now)}`),
  );
}

/** Moves the top bar's New York clock on to the service clock's time now (called every second). */
export function tickClock(target: HTMLElement, clock: ServiceClock): void {
  const now = clock.now(Date.now());
  const shown = target.querySelector('#new-york-clock');
  if (now && shown) shown.textContent = `New York ${newYorkTime(now.toISOString())}`;
}

/** The TFC strip: the nine timeframes in order, each with its colour named as well as shown. */
export function renderTfc(target: HTMLElement, state: StateSnapshot | undefined): void {
  target.replaceChildren(
    ...TIMEFRAMES.map((timeframe) => {
      const color = state?.tfc[timeframe];
      return h(
        'li',
        { class: color ?? 'none', 'aria-label': `${timeframe}: ${color ?? 'no candle'}` },
        h('span', { class: 'tf' }, timeframe),
        color ?? '–',
      );
    }),
  );
}

/** The chart's setup in words: shape and flags of the timeframe's row. */
export function renderSetupSummary(
  target: HTMLElement,
  timeframe: string | undefined,
  row: SetupRow | undefined,
): void {
  if (!timeframe) {
    target.replaceChildren('1-minute candles have no Strat timeframe: no setup.');
    return;
  }
  if (!row) {
    target.replaceChildren(`No setup row on ${timeframe} (fewer than three typed candles).`);
    return;
  }
  const tag = (text: string) => h('span', { class: 'tag' }, text);
  const tags = [
    `${row.timeframe} setup ${row.shape}`,
    row.in_force ? 'in force' : 'not in force',
    ...(row.p3 ? ['potential 3'] : []),
    ...(row.continuation ? ['continuation'] : []),
    `PMG ${formatPrice(row.pmg, row.symbol)}`,
  ];
  target.replaceChildren(...tags.map(tag));
}

const yes = (value: boolean) => h('td', { class: value ? 'yes' : '' }, value ? 'yes' : '–');

export function renderSetupsTable(
  body: HTMLTableSectionElement,
  rows: readonly SetupRow[],
  open: (symbol: string, timeframe: string) => void,
): void {
  if (rows.length === 0) {
    body.replaceChildren(h('tr', {}, h('td', { colspan: '8' }, 'No setup matches these filters.')));
    return;
  }
  body.replaceChildren(
    ...rows.map((row) => {
      const button = h('button', { type: 'button', class: 'symbol-link' }, row.symbol);
      button.addEventListener('click', () => open(row.symbol, row.timeframe));
      return h(
        'tr',
        {},
        h('td', {}, button),
        h('td', {}, row.timeframe),
        h('td', {}, row.shape),
        yes(row.in_force),
        yes(row.p3),
        yes(row.continuation),
        h('td', {}, formatPrice(row.pmg, row.symbol)),
        h('td', {}, row.sector),
      );
    }),
  );
}

const FEED_LENGTH = 100;

/** Puts an entry in its place in a feed ordered by the time it fired, newest first (docs/console.md#search-clock-feeds-and-prices). */
function place(list: HTMLOListElement, item: HTMLLIElement, live: boolean): void {
  list.querySelector('.empty')?.remove();
  if (live) item.classList.add('fresh');
  const entries = [...list.children] as HTMLLIElement[];
  const keys = entries.map((entry) => ({
    firedAt: entry.dataset.firedAt ?? '',
    id: Number(entry.dataset.id),
  }));
  const index = feedIndex(keys, { firedAt: item.dataset.firedAt ?? '', id: Number(item.dataset.id) });
  list.insertBefore(item, entries[index] ?? null);
  while (list.children.length > FEED_LENGTH) list.lastElementChild?.remove();
}

/** An in-force alert, as a button that opens its chart on its timeframe. */
export function addAlert(
  list: HTMLOListElement,
  alert: InForceAlert,
  live: boolean,
  open: (symbol: string, timeframe: string) => void,
): void {
  if (list.querySelector(`[data-alert-id="${alert.id}"]`)) return;
  const button = h(
    'button',
    {
      type: 'button',
      class: 'row',
      title: `Open ${alert.symbol} on ${alert.timeframe}`,
    },
    h('span', { class: 'sym' }, alert.symbol),
    h(
      'span',
      { class: alert.direction },
      `${alert.timeframe} ${alert.shape} ${alert.direction === 'bullish' ? '▲' : '▼'} ${formatPrice(alert.price, alert.symbol)} (${alert.cc})`,
    ),
    h('span', { class: 'when' }, newYorkTime(alert.triggered_at)),
  );
  button.addEventListener('click', () => open(alert.symbol, alert.timeframe));
  const item = h(
    'li',
    {
      'data-alert-id': String(alert.id),
      'data-id': String(alert.id),
      'data-fired-at': alert.triggered_at,
      'data-source': live ? 'live' : 'history',
    },
    button,
  );
  place(list, item, live);
}

export function addBreak(
  list: HTMLOListElement,
  found: SimultaneousBreak,
  live: boolean,
  open: (symbol: string, timeframe: string) => void,
): void {
  if (list.querySelector(`[data-break-id="${found.id}"]`)) return;
  const first = found.symbols[0] ?? 'ES1!';
  const button = h(
    'button',
    { type: 'button', class: 'row', title: `Open ${first} on ${found.timeframe}` },
    h('span', { class: 'sym' }, `${found.threshold} fut.`),
    h('span', { class: found.direction }, `${found.timeframe} ${found.direction} ${found.symbols.join(' ')}`),
    h('span', { class: 'when' }, newYorkTime(found.triggered_at)),
  );
  button.addEventListener('click', () => open(first, found.timeframe));
  place(
    list,
    h(
      'li',
      {
        'data-break-id': String(found.id),
        'data-id': String(found.id),
        'data-fired-at': found.triggered_at,
        'data-source': live ? 'live' : 'history',
      },
      button,
    ),
    live,
  );
}

export function emptyFeed(list: HTMLOListElement, text: string): void {
  if (list.children.length === 0) list.append(h('li', { class: 'empty' }, text));
}

import { isTimeframe, TIMEFRAME_INTERVAL, TIMEFRAMES } from '#domain/strat/timeframes';
import {
  CHART_INTERVALS,
  type ChartInterval,
  isChartInterval,
  setupOf,
  timeframeOf,
  triggerLevels,
} from './chart-model.ts';
import { ChartView } from './chart-view.ts';
import { loadConfig } from './config.ts';
import { formatPrice, type Listed, matchInstruments, ServiceClock } from './console-model.ts';
import { createClient, type MarketDataClient, type MarketDataStream } from './data.ts';
import { byId, h } from './dom.ts';
import { askForKey, forgetKey } from './key-gate.ts';
import {
  addAlert,
  addBreak,
  emptyFeed,
  renderMarketStatus,
  renderSetupSummary,
  renderSetupsTable,
  renderTfc,
  tickClock,
} from './panels.ts';
import type { StateSnapshot } from './types.ts';

const DEFAULT_SYMBOL = 'SPY';
const STATUS_REFRESH_MS = 30_000;
const CLOCK_TICK_MS = 1_000;
const SEARCH_RESULTS = 60;
const SETUPS_REFRESH_MS = 20_000;
/** The chart's candles are read again at most this often while quotes and states arrive. */
const CANDLES_REFRESH_MS = 5_000;

/**
 * The console (docs/console.md): a key, then the market status, the symbol search, the chart of one
 * symbol with its Strat state, the setups table and the live feeds, all through data.ts.
 */
class Console {
  private symbol = DEFAULT_SYMBOL;
  private interval: ChartInterval = '1d';
  private state: StateSnapshot | undefined;
  private partialBar = false;
  private readonly chart = new ChartView(byId('chart'));
  private candlesTimer: ReturnType<typeof setTimeout> | undefined;
  private stream: MarketDataStream | undefined;
  private loadSeq = 0;
  private readonly clock = new ServiceClock();
  /** The whole listing, read once through its pages: the search looks through names as well as symbols. */
  private listing: Promise<Listed[]> | undefined;

  constructor(private readonly client: MarketDataClient) {}

  async start(): Promise<void> {
    byId('app').hidden = false;
    this.buildIntervalButtons();
    this.buildFilters();
    this.wireSearch();
    void this.refreshStatus();
    setInterval(() => void this.refreshStatus(), STATUS_REFRESH_MS);
    setInterval(() => tickClock(byId('market-status'), this.clock), CLOCK_TICK_MS);
    void this.refreshSetups();
    setInterval(() => void this.refreshSetups(), SETUPS_REFRESH_MS);
    await this.search('');
    await this.loadRecentEvents();
    this.openStream();
    await this.open(this.symbol, 'D');
  }

  /** Opens a symbol's chart, on a timeframe's interval when one is given (an alert's, a setup's). */
  async open(symbol: string, timeframe?: string): Promise<void> {
    const previous = this.symbol;
    this.symbol = symbol;
    if (timeframe && isTimeframe(timeframe)) this.interval = TIMEFRAME_INTERVAL[timeframe] as ChartInterval;
    this.markIntervalButtons();
    this.markSearchResult();
    if (previous !== symbol && this.stream) {
      this.stream.unsubscribe('quotes', [previous]);
      this.stream.unsubscribe('states', [previous]);
    }
    this.stream?.subscribe('quotes', [symbol]);
    this.stream?.subscribe('states', [symbol]);
    await this.loadChart();
  }

  private async loadChart(): Promise<void> {
    const seq = ++this.loadSeq;
    const { symbol, interval } = this;
    byId('chart-title').textContent = `${symbol} · ${interval}`;
    try {
      const [candles, state] = await Promise.all([
        this.client.getCandles(symbol, { interval, limit: 300 }),
        this.client.getState(symbol),
      ]);
      if (seq !== this.loadSeq) return; // a later choice won
      this.state = state;
      this.partialBar = candles.partial_bar_included;
      this.chart.show(symbol, interval, candles.bars);
      this.renderState();
    } catch (error) {
      if (seq !== this.loadSeq) return;
      byId('setup-summary').textContent =
        `Could not load ${symbol}: ${error instanceof Error ? error.message : error}`;
    }
  }

  private renderState(): void {
    const state = this.state;
    const timeframe = timeframeOf(this.interval);
    const row = setupOf(state, timeframe);
    this.chart.levels(timeframe ? triggerLevels(this.chart.shownBars, this.partialBar) : undefined, row?.pmg);
    renderTfc(byId('tfc'), state);
    renderSetupSummary(byId('setup-summary'), timeframe, row);
    const last = state && 'price' in state.price ? state.price.price : undefined;
    byId('quote').replaceChildren(
      h('span', {}, formatPrice(last, state?.symbol)),
      h('span', { class: 'name' }, state?.instrument.name ?? ''),
    );
  }

  private scheduleCandles(): void {
    if (this.candlesTimer) return;
    this.candlesTimer = setTimeout(() => {
      this.candlesTimer = undefined;
      void this.loadChart();
    }, CANDLES_REFRESH_MS);
  }

  private openStream(): void {
    const stream = this.client.stream();
    this.stream = stream;
    const connection = byId('connection');
    const show = (text: string, kind: string) =>
      connection.replaceChildren(h('span', { class: `pill ${kind}` }, text));
    show('Stream connecting', 'down');
    stream.on('open', () => show('Stream live', 'live'));
    stream.on('reconnecting', ({ delayMs }) =>
      show(`Stream reconnecting in ${Math.round(delayMs / 1000)} s`, 'down'),
    );
    stream.on('close', ({ code }) => {
      if (code === 4409) show('Stream replaced by another connection of this account', 'closed');
      else if (code === 4401 || code === 4403) show(`Stream refused (${code})`, 'closed');
    });
    stream.on('quote', (quote) => {
      if (quote.symbol !== this.symbol) return;
      byId('quote').firstElementChild?.replaceChildren(formatPrice(quote.price, quote.symbol));
      this.chart.quote(quote.price);
      this.scheduleCandles();
    });
    stream.on('state', (state) => {
      if (state.symbol !== this.symbol) return;
      this.state = state;
      this.renderState();
      this.scheduleCandles();
    });
    const open = (symbol: string, timeframe: string) => void this.open(symbol, timeframe);
    stream.on('alert', (alert) => addAlert(byId('alert-feed'), alert, true, open));
    stream.on('break', (found) => addBreak(byId('break-feed'), found, true, open));
    stream.subscribe('alerts.in_force');
    stream.subscribe('alerts.simultaneous_breaks');
  }

  /** The feeds start with the last events over REST; the stream adds the new ones. */
  private async loadRecentEvents(): Promise<void> {
    const open = (symbol: string, timeframe: string) => void this.open(symbol, timeframe);
    const alerts = byId<HTMLOListElement>('alert-feed');
    const breaks = byId<HTMLOListElement>('break-feed');
    try {
      const [recentAlerts, recentBreaks] = await Promise.all([
        this.client.getInForceAlerts({ window_minutes: 60, limit: 500 }),
        this.client.getSimultaneousBreaks({ window_minutes: 1440, limit: 500 }),
      ]);
      for (const alert of recentAlerts.items.slice(-30)) addAlert(alerts, alert, false, open);
      for (const found of recentBreaks.items.slice(-20)) addBreak(breaks, found, false, open);
    } finally {
      emptyFeed(alerts, 'Waiting for alerts…');
      emptyFeed(breaks, 'No simultaneous break yet.');
    }
  }

  private async refreshStatus(): Promise<void> {
    try {
      const status = await this.client.getMarketStatus();
      this.clock.read(status.now, Date.now());
      renderMarketStatus(byId('market-status'), status);
    } catch (error) {
      byId('market-status').textContent =
        `Market status unavailable: ${error instanceof Error ? error.message : error}`;
    }
  }

  private async refreshSetups(): Promise<void> {
    const symbols = byId<HTMLInputElement>('filter-symbols')
      .value.split(',')
      .map((symbol) => symbol.trim().toUpperCase())
      .filter(Boolean);
    const chosen = byId<HTMLSelectElement>('filter-timeframe').value;
    const timeframe = isTimeframe(chosen) ? chosen : undefined;
    const only = byId<HTMLSelectElement>('filter-state').value as '' | 'in_force' | 'p3' | 'continuation';
    try {
      const { items } = await this.client.getCurrentSetups({
        symbols: symbols.length ? symbols : undefined,
        timeframes: timeframe ? [timeframe] : undefined,
        limit: 300,
      });
      const rows = only ? items.filter((row) => row[only]) : items;
      renderSetupsTable(
        byId<HTMLTableElement>('setups-table').tBodies[0] as HTMLTableSectionElement,
        rows,
        (s, tf) => void this.open(s, tf),
      );
    } catch (error) {
      byId('setups-title').textContent =
        `Current setups (unavailable: ${error instanceof Error ? error.message : error})`;
    }
  }

  private buildIntervalButtons(): void {
    const group = byId('intervals');
    group.replaceChildren(
      ...CHART_INTERVALS.map((interval) => {
        const button = h(
          'button',
          { type: 'button', 'data-interval': interval, 'aria-pressed': 'false' },
          interval,
        );
        button.addEventListener('click', () => {
          if (!isChartInterval(interval)) return;
          this.interval = interval;
          this.markIntervalButtons();
          void this.loadChart();
        });
        return button;
      }),
    );
  }

  private markIntervalButtons(): void {
    for (const button of byId('intervals').querySelectorAll('button')) {
      button.setAttribute('aria-pressed', String(button.dataset.interval === this.interval));
    }
  }

  private buildFilters(): void {
    const select = byId<HTMLSelectElement>('filter-timeframe');
    for (const timeframe of TIMEFRAMES) select.append(h('option', { value: timeframe }, timeframe));
    byId<HTMLFormElement>('setup-filters').addEventListener('submit', (event) => {
      event.preventDefault();
      void this.refreshSetups();
    });
  }

  private wireSearch(): void {
    const input = byId<HTMLInputElement>('search-input');
    let timer: ReturnType<typeof setTimeout> | undefined;
    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => void this.search(input.value.trim()), 200);
    });
    byId<HTMLFormElement>('search-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const first = byId('search-results').querySelector('button');
      first?.click();
    });
  }

  /** Every instrument, following the listing's pages (the `Link` header's cursor). */
  private async readListing(): Promise<Listed[]> {
    const all: Listed[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listInstruments({ limit: 200, ...(cursor ? { cursor } : {}) });
      all.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  }

  private async search(text: string): Promise<void> {
    this.listing ??= this.readListing().catch((error: unknown) => {
      this.listing = undefined; // read again on the next search
      throw error;
    });
    const items = matchInstruments(await this.listing, text, SEARCH_RESULTS);
    const list = byId('search-results');
    list.replaceChildren(
      ...items.map((instrument) => {
        const button = h(
          'button',
          { type: 'button', 'data-symbol': instrument.symbol },
          h('span', { class: 'sym' }, instrument.symbol),
          h('span', { class: 'name' }, instrument.name),
        );
        button.addEventListener('click', () => void this.open(instrument.symbol));
        return h('li', {}, button);
      }),
    );
    if (items.length === 0) list.append(h('li', { class: 'name' }, 'No symbol matches.'));
    this.markSearchResult();
  }

  private markSearchResult(): void {
    for (const button of byId('search-results').querySelectorAll<HTMLButtonElement>('button')) {
      button.setAttribute('aria-current', String(button.dataset.symbol === this.symbol));
    }
  }
}

async function main(): Promise<void> {
  const config = await loadConfig();
  const apiKey = await askForKey(config);
  const changeKey = byId<HTMLButtonElement>('change-key');
  changeKey.hidden = false;
  changeKey.addEventListener('click', () => {
    forgetKey();
    window.location.reload();
  });
  const client = createClient({ baseUrl: config.restBaseUrl, apiKey, wsUrl: config.wsUrl });
  await new Console(client).start();
}

main().catch((error: unknown) => {
  document.body.append(
    h('p', { class: 'error', role: 'alert' }, `The console failed to start: ${String(error)}`),
  );
});

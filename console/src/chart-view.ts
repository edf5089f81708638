import {
  CandlestickSeries,
  ColorType,
  createChart,
  createSeriesMarkers,
  HistogramSeries,
  type IPriceLine,
  type ISeriesApi,
  type ISeriesMarkersPluginApi,
  LineStyle,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import {
  type ChartInterval,
  candleLabels,
  isIntradayInterval,
  type TriggerLevels,
  withQuote,
} from './chart-model.ts';
import type { Bar } from './types.ts';

const COLORS = { up: '#26a69a', down: '#ef5350', pmg: '#f5b041', text: '#8b98a9', grid: '#1f2833' };
const TYPE_COLORS: Record<string, string> = {
  '1': '#8b98a9',
  '2U': COLORS.up,
  '2D': COLORS.down,
  '3': '#c792ea',
};

/** Bars shown at first: at a laptop's width each candle keeps room for its type label. */
const VISIBLE_BARS = 50;

const newYork = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  hour: '2-digit',
  minute: '2-digit',
  hour12: false,
});
const utcDate = new Intl.DateTimeFormat('en-US', {
  timeZone: 'UTC',
  year: 'numeric',
  month: 'short',
  day: 'numeric',
});

/**
 * The candlestick chart (lightweight-charts): candles with their Strat type above each one, volume below,
 * and the setup's trigger levels and PMG as price lines (docs/console.md#the-chart). Intraday bars are shown
 * in New York time, the market's; a bar of a day or longer by its UTC date (docs/candles.md).
 */
export class ChartView {
  private readonly chart;
  private readonly candles: ISeriesApi<'Candlestick'>;
  private readonly volume: ISeriesApi<'Histogram'>;
  private readonly markers: ISeriesMarkersPluginApi<Time>;
  private lines: IPriceLine[] = [];
  private bars: Bar[] = [];
  private intraday = false;

  constructor(private readonly container: HTMLElement) {
    this.chart = createChart(container, {
      autoSize: true,
      layout: {
        background: { type: ColorType.Solid, color: '#131a22' },
        textColor: COLORS.text,
        attributionLogo: true,
      },
      grid: { vertLines: { color: COLORS.grid }, horzLines: { color: COLORS.grid } },
      rightPriceScale: { borderColor: '#2a3441' },
      timeScale: { borderColor: '#2a3441', timeVisible: true, secondsVisible: false },
      localization: { timeFormatter: (time: Time) => this.formatTime(time as number) },
    });
    this.candles = this.chart.addSeries(CandlestickSeries, {
      upColor: COLORS.up,
      downColor: COLORS.down,
      borderVisible: false,
      wickUpColor: COLORS.up,
      wickDownColor: COLORS.down,
    });
    this.volume = this.chart.addSeries(HistogramSeries, {
      priceScaleId: 'volume',
      priceFormat: { type: 'volume' },
      lastValueVisible: false,
      priceLineVisible: false,
    });
    this.chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.82, bottom: 0 } });
    this.candles.priceScale().applyOptions({ scaleMargins: { top: 0.08, bottom: 0.22 } });
    this.markers = createSeriesMarkers(this.candles, []);
  }

  show(symbol: string, interval: ChartInterval, bars: readonly Bar[]): void {
    this.intraday = isIntradayInterval(interval);
    this.chart.applyOptions({
      timeScale: { tickMarkFormatter: (time: Time) => this.formatTick(time as number) },
    });
    this.bars = [...bars];
    this.candles.setData(this.bars.map(candle));
    this.volume.setData(this.bars.map(volumeBar));
    this.markers.setMarkers(
      candleLabels(this.bars).map(({ time, type }) => ({
        time: time as UTCTimestamp,
        position: 'aboveBar' as const,
        shape: 'square' as const,
        size: 0,
        color: TYPE_COLORS[type] ?? COLORS.text,
        text: type,
      })),
    );
    // The last VISIBLE_BARS bars, so each candle's type label has room; scroll or zoom for the rest.
    this.chart.timeScale().setVisibleLogicalRange({
      from: Math.max(0, this.bars.length - VISIBLE_BARS),
      to: this.bars.length + 2,
    });
    this.describe(symbol, interval);
  }

  /** Draws C1's high and low and the PMG; undefined levels remove them. */
  levels(triggers: TriggerLevels | undefined, pmg: number | null | undefined): void {
    for (const line of this.lines) this.candles.removePriceLine(line);
    this.lines = [];
    const add = (price: number, color: string, title: string, lineStyle: LineStyle) =>
      this.lines.push(
        this.candles.createPriceLine({
          price,
          color,
          title,
          lineStyle,
          lineWidth: 1,
          axisLabelVisible: true,
        }),
      );
    if (triggers) {
      add(triggers.high, COLORS.up, 'C1 high', LineStyle.Dashed);
      add(triggers.low, COLORS.down, 'C1 low', LineStyle.Dashed);
    }
    if (pmg !== null && pmg !== undefined) add(pmg, COLORS.pmg, 'PMG', LineStyle.Solid);
  }

  /** Folds a live quote into the forming bar (the last one), until the candles are read again. */
  quote(priceValue: number): void {
    const last = this.bars.at(-1);
    if (!last) return;
    const updated = withQuote(last, priceValue);
    this.bars[this.bars.length - 1] = updated;
    this.candles.update(candle(updated));
  }

  /** The bars on the chart, a live quote folded into the last. */
  get shownBars(): readonly Bar[] {
    return this.bars;
  }

  private describe(symbol: string, interval: ChartInterval): void {
    const last = this.bars.at(-1);
    this.container.dataset.barCount = String(this.bars.length);
    this.container.dataset.symbol = symbol;
    this.container.setAttribute(
      'aria-label',
      last
        ? `${symbol} ${interval} candlestick chart, ${this.bars.length} bars, last close ${last.close}`
        : `${symbol} ${interval}: no bars`,
    );
  }

  private formatTime(seconds: number): string {
    const date = new Date(seconds * 1000);
    return this.intraday ? `${utcDate.format(date)} ${newYork.format(date)} ET` : utcDate.format(date);
  }

  private formatTick(seconds: number): string {
    const date = new Date(seconds * 1000);
    return this.intraday ? newYork.format(date) : utcDate.format(date);
  }
}

function candle(bar: Bar) {
  return { time: bar.time as UTCTimestamp, open: bar.open, high: bar.high, low: bar.low, close: bar.close };
}

function volumeBar(bar: Bar) {
  return {
    time: bar.time as UTCTimestamp,
    value: bar.volume,
    color: bar.close >= bar.open ? 'rgba(38,166,154,0.45)' : 'rgba(239,83,80,0.45)',
  };
}

/// <reference lib="dom" />
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '#scripts/lib/headless-chromium';
import { startTestStack, type TestStack } from '../support/local-stack.ts';

/**
 * The web console (docs/console.md) in Debian's headless Chromium against the local stack and its
 * simulator: the page, the demo key, a chart with bars, and alerts arriving over the WebSocket.
 */
let local: TestStack;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  // 10:00 New York on a regular Tuesday, 60 times as fast: setups go in force within seconds.
  local = await startTestStack({
    clock: { start: new Date('2024-11-26T15:00:00Z'), speed: 60 },
    simulator: { seed: 7 },
  });
  await local.stack.simulation;
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('pageerror', (error) => pageErrors.push(error instanceof Error ? error.message : String(error)));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await local?.stop();
}, 120_000);

const origin = () => new URL(local.stack.restUrl).origin;

describe('the web console', () => {
  it('offers the local demo key, keeps it in session storage only, and connects', async () => {
    await page.goto(`${origin()}/console`);
    await page.waitForSelector('#demo-key:not([hidden])');
    await page.click('#demo-key');
    await page.waitForSelector('#key-dialog:not([open])');

    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([local.stack.demoKey]);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(page.url()).toBe(`${origin()}/console/`);
    await page.waitForFunction(() => document.querySelector('#connection')?.textContent === 'Stream live', {
      timeout: 60_000,
    });
  }, 120_000);

  it('shows the market status and a candlestick chart with bars of the symbol', async () => {
    await page.waitForFunction(
      () => Number(document.querySelector<HTMLElement>('#chart')?.dataset.barCount) > 0,
      {
        timeout: 60_000,
      },
    );
    const chart = await page.$eval('#chart', (element) => ({
      symbol: (element as HTMLElement).dataset.symbol,
      label: element.getAttribute('aria-label'),
      canvases: element.querySelectorAll('canvas').length,
    }));
    expect(chart.symbol).toBe('SPY');
    expect(chart.label).toMatch(/^SPY 1d candlestick chart, \d+ bars, last close [\d.]+$/);
    expect(chart.canvases).toBeGreaterThan(0);
    expect(await page.$eval('#market-status', (element) => element.textContent)).toContain('Market open');
    expect(
      await page.$$eval('#tfc li', (items) => items.map((item) => item.querySelector('.tf')?.textContent)),
    ).toEqual(['15', '30', '60', '4H', 'D', 'W', 'M', 'Q', 'Y']);
  }, 120_000);

  // QQQ: index ETFs get their history first (scripts/local/history-backfill.ts), the other stocks later.
  it('opens another symbol from the search, on the interval chosen', async () => {
    await page.type('#search-input', 'QQQ');
    await page.waitForSelector('#search-results button[data-symbol="QQQ"]');
    await page.click('#search-results button[data-symbol="QQQ"]');
    await page.click('#intervals button[data-interval="1w"]');
    await page.waitForFunction(
      () =>
        /^QQQ 1w candlestick chart, [1-9]\d* bars/.test(
          document.querySelector('#chart')?.getAttribute('aria-label') ?? '',
        ),
      { timeout: 60_000 },
    );
    expect(await page.$eval('#intervals button[aria-pressed="true"]', (button) => button.textContent)).toBe(
      '1w',
    );
  }, 120_000);

  it('shows an in-force alert pushed by the simulator, and opens its chart on a click', async () => {
    const live = await page.waitForSelector('#alert-feed li[data-source="live"] button', { timeout: 90_000 });
    const symbol = await live?.$eval('.sym', (element) => element.textContent);
    // From the keyboard: the feed keeps growing above it, so a click at its place could hit a newer row.
    await live?.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(
      (expected) => document.querySelector<HTMLElement>('#chart')?.dataset.symbol === expected,
      { timeout: 60_000 },
      symbol,
    );
    expect(await page.$eval('#chart-title', (element) => element.textContent)).toMatch(
      new RegExp(`^${symbol?.replace('!', '\\!')} · `),
    );
    expect(pageErrors).toEqual([]);
  }, 150_000);

  it('finds a symbol by its name over the listing: "apple" finds AAPL', async () => {
    await page.click('#search-input', { count: 3 });
    await page.keyboard.press('Backspace');
    await page.type('#search-input', 'apple');
    await page.waitForSelector('#search-results button[data-symbol="AAPL"]', { timeout: 30_000 });
  }, 60_000);

  it('ticks the New York clock every second', async () => {
    const first = await page.$eval('#new-york-clock', (element) => element.textContent);
    await page.waitForFunction(
      (shown) => document.querySelector('#new-york-clock')?.textContent !== shown,
      { timeout: 10_000 },
      first,
    );
    expect(first).toMatch(/^New York \d{2}:\d{2}:\d{2}$/);
  }, 60_000);

  it('orders the feeds by the time the events fired, newest first, and never clips a row time', async () => {
    for (const feed of ['#alert-feed', '#break-feed']) {
      const fired = await page.$$eval(`${feed} li[data-fired-at]`, (items) =>
        items.map((item) => Date.parse((item as HTMLElement).dataset.firedAt ?? '')),
      );
      expect(fired).toEqual([...fired].sort((a, b) => b - a));
    }
    const clipped = await page.$$eval(
      '.feed button.row',
      (rows) =>
        rows.filter((row) => {
          const when = row.querySelector('.when');
          if (!when) return true;
          return when.getBoundingClientRect().right > row.getBoundingClientRect().right + 0.5;
        }).length,
    );
    expect(clipped).toBe(0);
  }, 60_000);

  it('shows prices to the instrument tick: cents for a stock of a dollar or more', async () => {
    await page.click('#search-results button[data-symbol="AAPL"]');
    await page.waitForFunction(
      () => document.querySelector<HTMLElement>('#chart')?.dataset.symbol === 'AAPL',
      {
        timeout: 60_000,
      },
    );
    await page.waitForFunction(() => /\d/.test(document.querySelector('#quote span')?.textContent ?? ''), {
      timeout: 60_000,
    });
    expect(await page.$eval('#quote span', (element) => element.textContent)).toMatch(
      /^\d{1,3}(,\d{3})*\.\d{2}$/,
    );
    expect(pageErrors).toEqual([]);
  }, 120_000);
});

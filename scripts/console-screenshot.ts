/// <reference lib="dom" />
/**
 * `npm run console:screenshot`: docs/console.png, the web console in Debian's headless Chromium against an
 * in-memory local stack with the simulator (a Tuesday morning at 60 times speed), once alerts have come in.
 *
 *   --out FILE     where to write the PNG (default docs/console.png)
 *   --symbol SYM   the symbol to chart (default SPY)
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '#lib/project-root';
import { answerHelp } from './lib/cli.ts';
import { launchChromium } from './lib/headless-chromium.ts';
import { startLocalStack } from './local/stack.ts';

answerHelp(import.meta.url);

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: join(PROJECT_ROOT, 'docs', 'console.png') },
    symbol: { type: 'string', default: 'SPY' },
  },
});

const stack = await startLocalStack({
  port: 0,
  dynamoPort: 0,
  clock: { start: new Date('2024-11-26T15:00:00Z'), speed: 60 },
  simulator: { seed: 7 },
});
const browser = await launchChromium();
try {
  await stack.simulation;
  const page = await browser.newPage();
  await page.goto(new URL('/console/', stack.restUrl).href);
  await page.waitForSelector('#demo-key:not([hidden])');
  await page.click('#demo-key');
  if (values.symbol !== 'SPY') {
    // SPY opens first; another symbol through the search, as a person would.
    await page.type('#search-input', values.symbol);
    const button = await page.waitForSelector(`#search-results button[data-symbol="${values.symbol}"]`);
    await button?.click();
  }
  await page.waitForFunction(
    () => Number(document.querySelector<HTMLElement>('#chart')?.dataset.barCount) > 0,
    { timeout: 60_000 },
  );
  // A few live alerts, then the chart read again so its forming bar is current.
  await page.waitForFunction(
    () => document.querySelectorAll('#alert-feed li[data-source="live"]').length >= 3,
    { timeout: 120_000 },
  );
  await page.click('#intervals button[data-interval="1d"]');
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  await page.screenshot({ path: values.out });
  console.log(`Wrote ${values.out}`);
} finally {
  await browser.close();
  await stack.stop();
}

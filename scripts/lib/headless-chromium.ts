import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';

/**
 * Debian's Chromium (`apt-get install chromium`), driven by puppeteer-core, which downloads no browser.
 * `CHROMIUM_PATH` names another executable.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `no Chromium at ${CHROMIUM_PATH}: install Debian's (apt-get install -y chromium) or set CHROMIUM_PATH`,
    );
  }
  return puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // Root (CI) cannot use Chromium's sandbox; /dev/shm is small in containers.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--window-size=1440,900'],
    defaultViewport: { width: 1440, height: 900 },
  });
}

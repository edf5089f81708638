// The console's browser test (test/integration/console.test.ts) drives Debian's Chromium through
// puppeteer-core, which downloads no browser. Run before its tier (`npm run test:integration-slow`): when no
// Chromium is at CHROMIUM_PATH (default /usr/bin/chromium), install Debian's package with apt-get if this
// process may (root on Debian, as CI and the development machines are); otherwise say what to do and fail.
// Plain .mjs so it runs on any Node the README allows.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    console.error(
      `no Chromium at ${chromium}: install Debian's (sudo apt-get install -y chromium) or set CHROMIUM_PATH`,
    );
    process.exit(1);
  }
  console.log(`[chromium] none at ${chromium}: installing Debian's chromium package`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], {
    stdio: 'inherit',
    env,
  });
  if (!existsSync(chromium)) {
    console.error(`apt-get installed chromium, but nothing is at ${chromium}: set CHROMIUM_PATH`);
    process.exit(1);
  }
}

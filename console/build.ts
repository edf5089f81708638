import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BuildOptions, build, buildSync } from 'esbuild';

/**
 * The console's static files (docs/console.md#how-it-is-built): the page, its stylesheet, and one bundle of
 * its TypeScript with lightweight-charts, made by esbuild (no CDN, no framework). `npm start` builds them in
 * memory on the first request to /console; the CDK writes them into the static site's asset.
 */
export const CONSOLE_DIR = import.meta.dirname;

export interface ConsoleFile {
  readonly contentType: string;
  readonly body: Buffer;
}

const BUNDLE = 'console.js';
const STATIC_FILES = {
  'index.html': 'text/html; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
} as const;

const BUNDLE_OPTIONS: BuildOptions = {
  entryPoints: [join(CONSOLE_DIR, 'src', 'main.ts')],
  bundle: true,
  format: 'esm',
  // Current Chromium and Firefox (docs/console.md).
  target: ['chrome120', 'firefox120'],
  minify: true,
  legalComments: 'eof',
  logLevel: 'silent',
};

/** The files in memory, by name (the local stack). */
export async function buildConsole(): Promise<Map<string, ConsoleFile>> {
  const result = await build({ ...BUNDLE_OPTIONS, write: false, outfile: BUNDLE });
  const [bundle] = result.outputFiles;
  if (!bundle) throw new Error('esbuild produced no console bundle');
  const files = new Map<string, ConsoleFile>();
  for (const [name, contentType] of Object.entries(STATIC_FILES)) {
    files.set(name, { contentType, body: readFileSync(join(CONSOLE_DIR, name)) });
  }
  files.set(BUNDLE, { contentType: 'text/javascript; charset=utf-8', body: Buffer.from(bundle.contents) });
  return files;
}

/** The files written to a directory, synchronously, as a CDK asset's local bundling needs them. */
export function writeConsole(outputDir: string): void {
  buildSync({ ...BUNDLE_OPTIONS, outfile: join(outputDir, BUNDLE) });
  for (const name of Object.keys(STATIC_FILES)) copyFileSync(join(CONSOLE_DIR, name), join(outputDir, name));
}

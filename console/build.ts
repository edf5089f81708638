import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * The console's static files (docs/console.md#how-it-is-built): the page, its stylesheet, and one bundle of
 * its TypeScript with lightweight-charts, made by esbuild (no CDN, no framework). `npm start` builds them in
 * memory on the first request to /console; the CDK builds them into the static site's bucket.
 */
export const CONSOLE_DIR = import.meta.dirname;

export interface ConsoleFile {
  readonly contentType: string;
  readonly body: Buffer;
}

export async function buildConsole(): Promise<Map<string, ConsoleFile>> {
  const result = await build({
    entryPoints: [join(CONSOLE_DIR, 'src', 'main.ts')],
    bundle: true,
    format: 'esm',
    target: ['chrome120', 'firefox120'],
    minify: true,
    sourcemap: false,
    legalComments: 'eof',
    write: false,
    logLevel: 'silent',
    outfile: 'console.js',
  });
  const [bundle] = result.outputFiles;
  if (!bundle) throw new Error('esbuild produced no console bundle');
  return new Map<string, ConsoleFile>([
    [
      'index.html',
      { contentType: 'text/html; charset=utf-8', body: await readFile(join(CONSOLE_DIR, 'index.html')) },
    ],
    [
      'console.css',
      { contentType: 'text/css; charset=utf-8', body: await readFile(join(CONSOLE_DIR, 'console.css')) },
    ],
    ['console.js', { contentType: 'text/javascript; charset=utf-8', body: Buffer.from(bundle.contents) }],
  ]);
}

/**
 * Cold import of every Lambda bundle: each `.ts` file under `functions/handlers/<kind>/` (one Lambda entry
 * each, by convention) bundled with esbuild's `build()` and exactly the settings `cdk deploy` uses
 * (`LAMBDA_ESBUILD_OPTIONS` of lib/bundling.ts) into a temporary folder; then, per bundle, its size
 * (`index.mjs`), its source map's size, and the time to import it in a fresh Node process: a new `node`
 * for each of `--runs` timed imports (after one untimed, which warms the file cache), each timing
 * `await import(bundle)` alone, not the process start. The processes get the environment Lambda gives
 * (credentials in variables, a region), with placeholder values: nothing calls AWS at import, the ports
 * are created on first use. Each bundle is timed with `NODE_OPTIONS=--enable-source-maps`, as
 * lib/constructs/service-function.ts deploys it, and without.
 * Also the packages that make up the largest bundle (and the largest REST bundle), from esbuild's metafile.
 *
 * Options:
 * - `--root DIR` (or COLD_IMPORT_ROOT): bundle the handlers of another checkout instead of this one, with
 *   that checkout's node_modules (esbuild's working directory is DIR), for a before/after comparison; the
 *   settings are still this checkout's lib/bundling.ts.
 * - `--without-externals`: bundle without the settings' `external` list (the developer-only credential
 *   providers), as the bundles were built before lib/bundling.ts; with `--root`, an older commit as it was
 *   deployed.
 * - `--runs N` (default 15): timed imports per bundle.
 *
 * `npm run bench -- cold-import [--root DIR] [--without-externals]`, or on its own:
 * `npx tsx scripts/bench/cold-import.ts [options]`. The imports run on the Node that runs the benchmark: on
 * an older one, `node scripts/node24.mjs npm run bench -- cold-import` times them on the Lambdas' Node.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { build, version as esbuildVersion, type Metafile } from 'esbuild';
import { BUNDLE_FILE, LAMBDA_ESBUILD_OPTIONS, REST_BUNDLE_BUDGET_BYTES } from '#lib/bundling';
import { PROJECT_ROOT } from '#lib/project-root';
import { median, percentile, printWhenMain } from './harness.ts';
import type { BenchResult } from './types.ts';

const run = promisify(execFile);

const DEFAULT_RUNS = 15;
/** The order of the table: the REST routes first, then the other kinds as the stack wires them. */
const KINDS = ['rest', 'auth', 'ws', 'stream', 'ingest', 'schedule'] as const;
/** How many packages the contributor tables list. */
const TOP_CONTRIBUTORS = 15;

/** What a Lambda process has in its environment at import time, with placeholder values. */
const LAMBDA_LIKE_ENV: Readonly<Record<string, string>> = {
  AWS_REGION: 'us-east-1',
  AWS_DEFAULT_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIDCOLDIMPORTBENCH',
  AWS_SECRET_ACCESS_KEY: 'cold-import-bench',
  AWS_SESSION_TOKEN: 'cold-import-bench',
  POWERTOOLS_SERVICE_NAME: 'cold-import-bench',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
};

/** The functions' NODE_OPTIONS (lib/constructs/service-function.ts); each bundle is also timed without. */
const DEPLOYED_NODE_OPTIONS = '--enable-source-maps';

/** Run by each timing process: the import alone, timed, and whether the module exports a `handler`. */
const IMPORT_SCRIPT = [
  'const started = performance.now();',
  'const module = await import(process.argv[1]);',
  'const ms = performance.now() - started;',
  'process.stdout.write(JSON.stringify({ ms, handler: typeof module.handler }), () => process.exit(0));',
].join('\n');

interface Options {
  readonly root: string;
  readonly withoutExternals: boolean;
  readonly runs: number;
}

function parseOptions(args: readonly string[]): Options {
  const { values } = parseArgs({
    args: [...args],
    options: {
      root: { type: 'string' },
      'without-externals': { type: 'boolean', default: false },
      runs: { type: 'string', default: String(DEFAULT_RUNS) },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs: a positive integer, not ${values.runs}`);
  return {
    root: resolve(values.root ?? process.env.COLD_IMPORT_ROOT ?? PROJECT_ROOT),
    withoutExternals: values['without-externals'] ?? false,
    runs,
  };
}

interface Entry {
  readonly kind: string;
  /** The entry below functions/handlers/<kind>/, without `.ts`. */
  readonly name: string;
  /** Relative to the root. */
  readonly path: string;
}

/** Every Lambda entry of the checkout at `root`, in table order. */
function entriesOf(root: string): Entry[] {
  const handlers = join(root, 'functions', 'handlers');
  const entries = readdirSync(handlers, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => {
      const [kind = '', ...rest] = file.split(/[\\/]/);
      return { kind, name: rest.join('/').replace(/\.ts$/, ''), path: relative(root, join(handlers, file)) };
    });
  const rank = (kind: string) => {
    const index = (KINDS as readonly string[]).indexOf(kind);
    return index === -1 ? KINDS.length : index;
  };
  return entries.sort((a, b) => rank(a.kind) - rank(b.kind) || a.path.localeCompare(b.path));
}

interface Bundle extends Entry {
  readonly file: string;
  readonly bytes: number;
  readonly mapBytes: number;
  readonly metafile: Metafile;
  readonly warnings: number;
}

async function bundle(root: string, entry: Entry, outDir: string, options: Options): Promise<Bundle> {
  const file = join(outDir, entry.kind, entry.name, BUNDLE_FILE);
  const result = await build({
    ...LAMBDA_ESBUILD_OPTIONS,
    external: options.withoutExternals ? [] : [...LAMBDA_ESBUILD_OPTIONS.external],
    mainFields: [...LAMBDA_ESBUILD_OPTIONS.mainFields],
    entryPoints: [entry.path],
    absWorkingDir: root,
    outfile: file,
    metafile: true,
    logLevel: 'error',
  });
  return {
    ...entry,
    file,
    bytes: statSync(file).size,
    mapBytes: statSync(`${file}.map`).size,
    metafile: result.metafile,
    warnings: result.warnings.length,
  };
}

/**
 * One fresh `node` importing `file` with NODE_OPTIONS `nodeOptions`: milliseconds of the import alone.
 * `expectHandler`: fail unless the module exports a `handler` function (a bundle that cannot be imported,
 * say because a module marked external is imported statically, fails the benchmark).
 */
async function importOnce(file: string, nodeOptions: string, expectHandler = true): Promise<number> {
  const { stdout } = await run(
    process.execPath,
    ['--input-type=module', '-e', IMPORT_SCRIPT, pathToFileURL(file).href],
    { env: { PATH: process.env.PATH ?? '', ...LAMBDA_LIKE_ENV, NODE_OPTIONS: nodeOptions }, timeout: 60_000 },
  );
  const { ms, handler } = JSON.parse(stdout) as { ms: number; handler: string };
  if (expectHandler && handler !== 'function') throw new Error(`${file} exports no handler function`);
  return ms;
}

interface Timing {
  readonly medianMs: number;
  readonly p90Ms: number;
}

function timingOf(ms: readonly number[]): Timing {
  const sorted = [...ms].sort((a, b) => a - b);
  return { medianMs: median(sorted), p90Ms: percentile(sorted, 90) };
}

/**
 * `runs` imports of `file` as deployed (with source maps) and as many without, alternating so that a
 * change in the machine's load shows in both, after one untimed import of each.
 */
async function timeImport(
  file: string,
  runs: number,
  expectHandler = true,
): Promise<{ deployed: Timing; withoutSourceMaps: Timing }> {
  await importOnce(file, DEPLOYED_NODE_OPTIONS, expectHandler);
  await importOnce(file, '', expectHandler);
  const deployed: number[] = [];
  const withoutSourceMaps: number[] = [];
  for (let i = 0; i < runs; i++) {
    deployed.push(await importOnce(file, DEPLOYED_NODE_OPTIONS, expectHandler));
    withoutSourceMaps.push(await importOnce(file, '', expectHandler));
  }
  return { deployed: timingOf(deployed), withoutSourceMaps: timingOf(withoutSourceMaps) };
}

/** The package an input of the metafile belongs to; project files by their folder under the root. */
function packageOf(input: string): string {
  const at = input.lastIndexOf('node_modules/');
  if (at === -1) {
    const [first = input, second] = input.split('/');
    return second === undefined ? first : `${first}/${second}/ (project)`;
  }
  const [scope = '', name = ''] = input.slice(at + 'node_modules/'.length).split('/');
  return scope.startsWith('@') ? `${scope}/${name}` : scope;
}

const kb = (bytes: number) => Number((bytes / 1000).toFixed(1));
const ms = (value: number) => Number(value.toFixed(1));

function contributors(target: Bundle): BenchResult {
  const out = Object.values(target.metafile.outputs).find((candidate) => candidate.entryPoint !== undefined);
  if (out === undefined) throw new Error(`${target.path}: no output in the metafile`);
  const byPackage = new Map<string, number>();
  const byScope = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(out.inputs)) {
    const name = packageOf(input);
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
    const scope = name.startsWith('@') ? `${name.split('/')[0]}/*` : name;
    byScope.set(scope, (byScope.get(scope) ?? 0) + bytesInOutput);
  }
  const attributed = [...byPackage.values()].reduce((sum, bytes) => sum + bytes, 0);
  const ranked = [...byPackage].sort((a, b) => b[1] - a[1]);
  const scopes = [...byScope]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([scope, bytes]) => `${scope} ${kb(bytes)} KB`)
    .join(', ');
  return {
    name: `Largest contributors to ${target.kind}/${target.name} (${kb(target.bytes)} KB)`,
    figures: {
      'bundle (KB)': kb(target.bytes),
      'attributed to inputs by esbuild (KB)': kb(attributed),
      packages: byPackage.size,
      'largest scopes': scopes,
    },
    rows: ranked.slice(0, TOP_CONTRIBUTORS).map(([name, bytes]) => ({
      package: name,
      'bytes in bundle (KB)': kb(bytes),
      'share of bundle': `${((bytes / target.bytes) * 100).toFixed(1)}%`,
    })),
  };
}

async function commitOf(root: string): Promise<string> {
  try {
    const { stdout: commit } = await run('git', ['-C', root, 'rev-parse', '--short', 'HEAD']);
    const { stdout: status } = await run('git', ['-C', root, 'status', '--porcelain', '--', 'functions']);
    return `${commit.trim()}${status.trim() ? ' (functions/ modified)' : ''}`;
  } catch {
    return 'not a git checkout';
  }
}

export async function benchColdImport(args: readonly string[] = []): Promise<BenchResult[]> {
  const options = parseOptions(args);
  const entries = entriesOf(options.root);
  const outDir = mkdtempSync(join(tmpdir(), 'cold-import-'));
  try {
    const started = performance.now();
    const bundles = await Promise.all(entries.map((entry) => bundle(options.root, entry, outDir, options)));
    const bundleSeconds = (performance.now() - started) / 1000;

    const loadBefore = loadavg()[0] ?? 0;
    const empty = join(outDir, 'empty.mjs');
    writeFileSync(empty, '');
    const floor = await timeImport(empty, options.runs, false);
    const rows: Record<string, number | string>[] = [];
    for (const b of bundles) {
      const { deployed, withoutSourceMaps } = await timeImport(b.file, options.runs);
      rows.push({
        kind: b.kind,
        handler: b.name,
        'bundle (KB)': kb(b.bytes),
        'source map (KB)': kb(b.mapBytes),
        'import ms, median': ms(deployed.medianMs),
        'import ms, p90': ms(deployed.p90Ms),
        'no source maps: median': ms(withoutSourceMaps.medianMs),
        'no source maps: p90': ms(withoutSourceMaps.p90Ms),
      });
    }
    const loadAfter = loadavg()[0] ?? 0;

    const rest = bundles.filter((b) => b.kind === 'rest');
    const over = rest.filter((b) => b.bytes > REST_BUNDLE_BUDGET_BYTES);
    const largest = bundles.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    const largestRest = rest.reduce<Bundle | undefined>(
      (a, b) => (a && a.bytes >= b.bytes ? a : b),
      undefined,
    );
    const budget =
      rest.length === 0
        ? 'no REST handlers'
        : over.length === 0
          ? `yes: all ${rest.length} at most ${kb(REST_BUNDLE_BUDGET_BYTES)} KB (largest ${largestRest?.name} ${kb(largestRest?.bytes ?? 0)} KB)`
          : `no: ${over.length} of ${rest.length} above ${kb(REST_BUNDLE_BUDGET_BYTES)} KB (largest ${largestRest?.name} ${kb(largestRest?.bytes ?? 0)} KB)`;

    const results: BenchResult[] = [
      {
        name: 'Cold import of every Lambda bundle (fresh node process per import)',
        figures: {
          checkout: `${options.root} at ${await commitOf(options.root)}`,
          settings: options.withoutExternals
            ? "lib/bundling.ts without 'external' (the credential providers bundled)"
            : `lib/bundling.ts (target ${LAMBDA_ESBUILD_OPTIONS.target}, ${LAMBDA_ESBUILD_OPTIONS.external.length} packages external)`,
          esbuild: esbuildVersion,
          'node (the imports)': process.version,
          'bundles (Lambda entries)': bundles.length,
          'esbuild warnings': bundles.reduce((sum, b) => sum + b.warnings, 0),
          'bundling all, in parallel (s)': Number(bundleSeconds.toFixed(1)),
          'every REST bundle <= 300 KB': budget,
          'import of an empty module, median (ms)': ms(floor.deployed.medianMs),
          runs: `${options.runs} timed imports per bundle and mode after 1 untimed, each in a new node process; with NODE_OPTIONS=${DEPLOYED_NODE_OPTIONS} as deployed, alternating with none`,
          'load average (1 min), before / after the imports': `${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)} (${cpus().length} cores)`,
        },
        rows,
      },
      contributors(largest),
    ];
    if (largestRest !== undefined && largestRest !== largest) results.push(contributors(largestRest));
    return results;
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

await printWhenMain(import.meta.url, benchColdImport);

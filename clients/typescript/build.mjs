/**
 * `npm run build`: the library as one ES module (dist/index.js) and one CommonJS module (dist/index.cjs),
 * bundled by esbuild from src/ with no source maps (the package does not ship src/), and the type
 * declarations by tsc (dist/*.d.ts).
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist', { recursive: true, force: true });
const common = {
  entryPoints: ['src/index.ts'],
  bundle: true,
  platform: 'neutral',
  target: 'es2022',
  logLevel: 'warning',
};
await build({ ...common, format: 'esm', outfile: 'dist/index.js' });
await build({ ...common, format: 'cjs', outfile: 'dist/index.cjs' });
execFileSync('tsc', ['-p', 'tsconfig.json', '--emitDeclarationOnly'], { stdio: 'inherit' });

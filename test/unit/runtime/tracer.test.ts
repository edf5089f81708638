import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#lib/project-root';

/**
 * functions/runtime/tracer.ts in a process of its own: whether it loads the X-Ray SDK (whose async hooks run
 * on every promise) decides what every non-REST handler's process pays, so it is checked where nothing else
 * has loaded it.
 */
function importTracer(env: Record<string, string>) {
  const script = [
    "const { tracer, TRACING_ENABLED } = await import('#runtime/tracer');",
    "const { createRequire } = await import('node:module');",
    'const loaded = Object.keys(createRequire(import.meta.url).cache);',
    'console.log(JSON.stringify({ traced: tracer !== undefined, enabled: TRACING_ENABLED,',
    "  xray: loaded.some((path) => path.includes('aws-xray-sdk-core')) }));",
  ].join('\n');
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, POWERTOOLS_TRACE_ENABLED: '', ...env },
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1) ?? '{}');
}

describe('the tracer', () => {
  it('traces by default, as on Lambda, with the X-Ray SDK loaded', () => {
    expect(importTracer({})).toEqual({ traced: true, enabled: true, xray: true });
  });

  it('loads neither the Tracer nor the X-Ray SDK where tracing is off (the local stack)', () => {
    expect(importTracer({ POWERTOOLS_TRACE_ENABLED: 'false' })).toEqual({
      traced: false,
      enabled: false,
      xray: false,
    });
  });
});

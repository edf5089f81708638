import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { PROJECT_ROOT } from '#lib/project-root';

/**
 * Runs one of the project's TypeScript scripts with Node and tsx, as the npm scripts do. The handlers' logs
 * are silenced unless `environment` says otherwise (a value `undefined` removes the variable).
 */
export function spawnScript(
  script: string,
  args: string[],
  environment: Readonly<Record<string, string | undefined>> = {},
  /** In a process group of its own, as a terminal starts a command: signal it all with kill(-pid). */
  detached = false,
): ChildProcess {
  const env: Record<string, string | undefined> = { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' };
  for (const [name, value] of Object.entries(environment)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: PROJECT_ROOT,
    env,
    detached,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export async function runScript(script: string, args: string[]) {
  const child = spawnScript(script, args);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = await once(child, 'exit');
  return { code: code as number, stdout, stderr };
}

/** Resolves with the output so far once `pattern` appears on the child's stdout. */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      if (pattern.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ${pattern}:\n${output}`));
    });
  });
}

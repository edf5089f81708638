/** Shared by the operator commands: `--help`, and a clean one-line failure, never a stack trace. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export class UsageError extends Error {}

/**
 * The usage of a command: its file's header comment (the first `/** ... *\/` block), without the comment
 * marks. Each command's header is its usage text, so the two cannot drift apart.
 */
export function usageOf(moduleUrl: string): string {
  const source = readFileSync(fileURLToPath(moduleUrl), 'utf8');
  const header = /\/\*\*([\s\S]*?)\*\//.exec(source)?.[1] ?? '';
  return header
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, '').trimEnd())
    .join('\n')
    .trim();
}

/**
 * Answers `--help` or `-h` (anywhere among the arguments) with the command's usage on stdout and exit code 0;
 * otherwise does nothing. Every `npm run` entry calls it first with its own `import.meta.url`.
 */
export function answerHelp(moduleUrl: string, args: readonly string[] = process.argv.slice(2)): void {
  if (!args.some((arg) => arg === '--help' || arg === '-h')) return;
  process.stdout.write(`${usageOf(moduleUrl)}\n`);
  process.exit(0);
}

export function exitWith(command: string, error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  const unreachable =
    /ECONNREFUSED|connect ECONN/.test(message) || (error as { code?: string })?.code === 'ECONNREFUSED';
  process.stderr.write(
    unreachable
      ? `${command}: cannot reach DynamoDB (${message}). Is the local stack running (npm start)?\n`
      : `${command}: ${message}\n`,
  );
  process.exit(error instanceof UsageError ? 2 : 1);
}

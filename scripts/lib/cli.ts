/** Shared by the operator commands: a clean one-line failure, never a stack trace. */
export class UsageError extends Error {}

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

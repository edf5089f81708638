/** Waiting for the local stack to finish what it was given. */
import type { LocalStack } from '../../local/stack.ts';
import { sleep } from '../harness.ts';

/**
 * Waits until the trades put so far are ingested, the changes they made delivered, and the stack's
 * DynamoDB calls have stopped for half a second (the last posts' usage rows, the `$disconnect`s).
 */
export async function drain(stack: LocalStack): Promise<void> {
  await stack.trades.flush();
  // Its answer comes after every change dynalite reported before it: all of them are captured now.
  await stack.dynamoRequestCount();
  await stack.changes.flush();
  await quiet(stack);
}

/** Waits until the stack's DynamoDB calls have stopped for half a second. */
export async function quiet(stack: LocalStack): Promise<void> {
  let calls = await stack.dynamoRequestCount();
  for (;;) {
    await sleep(500);
    const next = await stack.dynamoRequestCount();
    if (next === calls) return;
    calls = next;
  }
}

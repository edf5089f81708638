import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { LOCAL_STACK_STATE_FILE } from './project.ts';

/** What a local stack writes about itself into its data folder (LOCAL_STACK_STATE_FILE) while it runs. */
export interface LocalStackState {
  readonly restUrl: string;
  readonly wsUrl: string;
  readonly dynamoEndpoint: string;
  readonly pid: number;
  /** The service clock when it is not the wall clock (`--clock`, `--speed`): as the handlers read it. */
  readonly clock?: { readonly start: string; readonly anchorMs: number; readonly speed: number };
}

/** True while the process `pid` runs (signal 0 checks without signalling; EPERM: it runs as another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The state file of the local stack using `dataDir`, whether or not its process still runs. */
export async function localStackStateFile(dataDir: string): Promise<LocalStackState | undefined> {
  try {
    return JSON.parse(await readFile(join(dataDir, LOCAL_STACK_STATE_FILE), 'utf8')) as LocalStackState;
  } catch {
    return undefined;
  }
}

/**
 * Removes the state file of the stack that stops, only while it is still that stack's own (same process and
 * address): a newer stack that has written its own meanwhile keeps it, so `npm run replay` and the example
 * client still find the running one.
 */
export async function removeOwnStateFile(
  dataDir: string,
  own: Pick<LocalStackState, 'pid' | 'restUrl'>,
): Promise<boolean> {
  const current = await localStackStateFile(dataDir);
  if (current === undefined || current.pid !== own.pid || current.restUrl !== own.restUrl) return false;
  await rm(join(dataDir, LOCAL_STACK_STATE_FILE), { force: true });
  return true;
}

import { once } from 'node:events';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_STACK_STATE_FILE } from '#scripts/lib/project';
import { startLocalStack } from '../../scripts/local/stack.ts';
import { spawnScript, waitForOutput } from '../support/processes.ts';

/** A stack asked to stop must be gone within this long, whatever it was doing (docs/architecture.md). */
const STOP_DEADLINE_MS = 5_000;

const folders: string[] = [];
async function folder(): Promise<string> {
  const made = await mkdtemp(join(tmpdir(), 'mda-stop-'));
  folders.push(made);
  return made;
}
afterAll(async () => {
  for (const made of folders) await rm(made, { recursive: true, force: true });
});

/** Whether the child exits within the deadline after Ctrl-C to its whole process group (as a terminal sends). */
async function exitsAfterCtrlC(child: ReturnType<typeof spawnScript>): Promise<boolean> {
  const exited = once(child, 'exit').then(() => true);
  process.kill(-(child.pid as number), 'SIGINT');
  const deadline = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), STOP_DEADLINE_MS));
  const inTime = await Promise.race([exited, deadline]);
  if (!inTime) process.kill(-(child.pid as number), 'SIGKILL');
  return inTime;
}

function firstStart(dataDir: string) {
  return spawnScript(
    'scripts/local/start.ts',
    ['--port', '0', '--dynamo-port', '0', '--data-dir', dataDir, '--clock', '2024-11-26T15:00:00Z'],
    {},
    true,
  );
}

describe('Ctrl-C during the first start, while the history is imported', () => {
  it.each([
    ['as the import starts', 0],
    ['a few seconds into the import', 3_000],
    ['well into the import', 8_000],
  ])(
    'stops within 5 s %s',
    async (_when, afterMs) => {
      const child = firstStart(await folder());
      await waitForOutput(child, /History: writing/);
      await new Promise((resolve) => setTimeout(resolve, afterMs));
      expect(await exitsAfterCtrlC(child)).toBe(true);
    },
    60_000,
  );

  it('stops within 5 s while it is still starting', async () => {
    const child = firstStart(await folder());
    await waitForOutput(child, /Seeded|Ctrl-C/);
    expect(await exitsAfterCtrlC(child)).toBe(true);
  }, 60_000);
});

describe('the state file of a stopping stack', () => {
  it('is removed only while it is its own: a newer stack that wrote it keeps it', async () => {
    const [older, newer] = [await folder(), await folder()];
    const first = await startLocalStack({ port: 0, dynamoPort: 0, dataDir: older });
    const second = await startLocalStack({ port: 0, dynamoPort: 0, dataDir: newer });
    // The newer stack's state file now stands in the older one's folder, as if it had written it there.
    await copyFile(join(newer, LOCAL_STACK_STATE_FILE), join(older, LOCAL_STACK_STATE_FILE));
    await first.stop();
    const kept = JSON.parse(await readFile(join(older, LOCAL_STACK_STATE_FILE), 'utf8')) as {
      restUrl: string;
    };
    expect(kept.restUrl).toBe(second.restUrl);
    await second.stop();
    await expect(readFile(join(newer, LOCAL_STACK_STATE_FILE), 'utf8')).rejects.toThrow(/ENOENT/);
  }, 60_000);
});

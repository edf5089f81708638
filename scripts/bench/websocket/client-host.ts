/** The benchmark's side of the client host (scripts/bench/websocket/client-host-process.ts). */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Collected, HostCommand, HostReply } from './protocol.ts';

const HOST_PROCESS = fileURLToPath(new URL('./client-host-process.ts', import.meta.url));

export class ClientHost {
  private waiting: ((reply: HostReply) => void) | undefined;
  /** Called, while recording with `notify`, for each quote the first client receives. */
  onObserved: (symbol: number, sequence: number) => void = () => undefined;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (reply: HostReply) => {
      if (reply.op === 'observed') this.onObserved(reply.symbol, reply.sequence);
      else this.waiting?.(reply);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  static start(): ClientHost {
    return new ClientHost(
      spawn(process.execPath, ['--import', 'tsx', HOST_PROCESS], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
  }

  /** Opens a connection per key (each subscribed to `quotes` of `symbols`, or idle); throws if any failed. */
  async open(
    url: string,
    keys: readonly string[],
    symbols?: readonly string[],
    options: { batch?: boolean } = {},
  ): Promise<void> {
    const { opened, failures } = await this.request({ op: 'open', url, keys, symbols, ...options }, 'opened');
    if (opened !== keys.length)
      throw new Error(`${keys.length - opened} of ${keys.length} connections failed: ${failures.join('; ')}`);
  }

  /** Forgets what the clients received so far and records from now on. */
  async record(notify: boolean): Promise<void> {
    await this.request({ op: 'record', notify }, 'recording');
  }

  collect(): Promise<Collected> {
    return this.request({ op: 'collect' }, 'collected');
  }

  /** Closes every connection; the closes the host did not ask for over its whole run, by code. */
  async close(): Promise<Readonly<Record<string, number>>> {
    return (await this.request({ op: 'close' }, 'closed')).unexpectedCloses;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.disconnect();
    await exited;
  }

  private request<Op extends HostReply['op']>(
    command: HostCommand,
    op: Op,
  ): Promise<Extract<HostReply, { op: Op }>> {
    return new Promise((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`the client host exited (${code})`));
      this.child.once('exit', exited);
      this.waiting = (reply) => {
        this.waiting = undefined;
        this.child.off('exit', exited);
        if (reply.op === op) resolve(reply as Extract<HostReply, { op: Op }>);
        else reject(new Error(`the client host answered ${reply.op}, not ${op}`));
      };
      this.child.send(command);
    });
  }
}

/** What went wrong in what the clients received, as figures. */
export function integrityFigures(collected: Collected): Record<string, number | string> {
  return {
    'out of order': collected.outOfOrder,
    duplicates: collected.duplicates,
    missing: collected.missing,
    'other messages': collected.other,
  };
}

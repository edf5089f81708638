import { type MessagePort, Worker, type WorkerOptions } from 'node:worker_threads';
import type { CloseCode } from '#contracts/websocket';
import { Frame } from '#domain/streaming/messages';
import type { ClientConnections, Delivery } from '#domain/streaming/ports';

/** How long a post worker that exited waits before it is started again. */
const RESTART_AFTER_MS = 1_000;

/** A call handed to a post worker. */
type PostCall =
  | { readonly id: number; readonly op: 'send'; readonly connectionId: string; readonly json: string }
  | { readonly id: number; readonly op: 'close'; readonly connectionId: string; readonly code: CloseCode };

/** A post worker's answer: the delivery, or the error's name and message (errors do not cross threads whole). */
type PostAnswer =
  | { readonly id: number; readonly ok: true; readonly delivery?: Delivery }
  | { readonly id: number; readonly ok: false; readonly name: string; readonly message: string };

/** A failed post, as the worker's client threw it: its name (`LimitExceededException`, ...) and message. */
export class PostFailed extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

interface PostWorker {
  worker: Worker;
  /** False from its exit until it is started again: posts meanwhile fail at once rather than wait. */
  alive: boolean;
  readonly pending: Map<number, { resolve: (answer: PostAnswer) => void; reject: (error: Error) => void }>;
}

/**
 * The `@connections` port spread over worker threads, each with its own `@connections` client
 * (functions/containers/quote-post-worker.ts). A post costs the SDK about 350 µs of CPU (signing, serializing,
 * the HTTP exchange; docs/adr/0026-long-running-ingest-consumer.md), so one thread posts at most about 2,800
 * frames a second, and the open brings more: the windowed consumer's thread folds and commits, and hands each
 * frame's JSON to the workers in turn, a message each (`npm run bench -- posts`: 15-25 µs of its thread a
 * post; sending a turn's posts in one message a worker measured no less). A worker that dies fails the posts
 * it held and is started again.
 */
export class PooledClientConnections implements ClientConnections {
  private readonly workers: PostWorker[];
  private nextWorker = 0;
  private nextId = 0;
  private stopping = false;

  constructor(
    private readonly workerFile: URL,
    size: number,
    /** How the workers start (tests run the TypeScript entry with tsx); by default as this thread did. */
    private readonly workerOptions: WorkerOptions = {},
  ) {
    this.workers = Array.from({ length: Math.max(1, size) }, () => {
      const entry = { alive: false, pending: new Map() } as unknown as PostWorker;
      this.spawn(entry);
      return entry;
    });
  }

  async send(connectionId: string, frame: Frame): Promise<Delivery> {
    const answer = await this.call({ id: this.nextId++, op: 'send', connectionId, json: frame.json });
    return answer.delivery ?? 'sent';
  }

  async close(connectionId: string, code: CloseCode): Promise<void> {
    await this.call({ id: this.nextId++, op: 'close', connectionId, code });
  }

  /** Ends every worker; posts still held fail. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.workers.map(({ worker }) => worker.terminate()));
  }

  private async call(call: PostCall): Promise<PostAnswer & { ok: true }> {
    const target = this.workers[this.nextWorker++ % this.workers.length] as PostWorker;
    if (!target.alive) throw new PostFailed('PostWorkerDown', 'the post worker is starting again');
    const answer = await new Promise<PostAnswer>((resolve, reject) => {
      target.pending.set(call.id, { resolve, reject });
      target.worker.postMessage(call);
    });
    if (!answer.ok) throw new PostFailed(answer.name, answer.message);
    return answer;
  }

  /** Starts `entry`'s worker thread, and again whenever it exits while the pool runs. */
  private spawn(entry: PostWorker): void {
    const worker = new Worker(this.workerFile, this.workerOptions);
    entry.worker = worker;
    entry.alive = true;
    worker.on('message', (answer: PostAnswer) => {
      entry.pending.get(answer.id)?.resolve(answer);
      entry.pending.delete(answer.id);
    });
    worker.on('error', (error) => this.failAll(entry, error));
    worker.on('exit', (code) => {
      entry.alive = false;
      this.failAll(entry, new Error(`a post worker exited with code ${code}`));
      // Started again a second later: a worker that cannot start (a setting missing) does not spin.
      if (!this.stopping) setTimeout(() => this.stopping || this.spawn(entry), RESTART_AFTER_MS).unref();
    });
  }

  private failAll(entry: PostWorker, error: Error): void {
    for (const { reject } of entry.pending.values()) reject(error);
    entry.pending.clear();
  }
}

/**
 * A post worker's side (functions/containers/quote-post-worker.ts): each call from the pool, made on
 * `connections`, answered on `port` with its delivery or its error's name and message.
 */
export function servePosts(port: MessagePort, connections: ClientConnections): void {
  const answer = async (call: PostCall): Promise<PostAnswer> => {
    try {
      if (call.op === 'close') {
        await connections.close(call.connectionId, call.code);
        return { id: call.id, ok: true };
      }
      return {
        id: call.id,
        ok: true,
        delivery: await connections.send(call.connectionId, new Frame(call.json)),
      };
    } catch (error) {
      const { name, message } = error instanceof Error ? error : new Error(String(error));
      return { id: call.id, ok: false, name, message };
    }
  };
  port.on('message', (call: PostCall) => {
    void answer(call).then((done) => port.postMessage(done));
  });
}

import WebSocket from 'ws';

/**
 * A WebSocket test client: every message parsed and kept, waits for a message that matches, and the close
 * code and whether any message came before it.
 */
export class TestWebSocketClient {
  readonly messages: Record<string, unknown>[] = [];
  readonly closed: Promise<{ code: number; reason: string; messagesBefore: number }>;
  private readonly waiters = new Set<() => void>();

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.messages.push(JSON.parse(data.toString()) as Record<string, unknown>);
      for (const wake of this.waiters) wake();
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString(), messagesBefore: this.messages.length });
        for (const wake of this.waiters) wake();
      });
    });
  }

  static connect(url: string, headers: Record<string, string> = {}): TestWebSocketClient {
    return new TestWebSocketClient(new WebSocket(url, { headers }));
  }

  /** Connects as a browser does: no headers, the key offered as a subprotocol (`protocols`). */
  static connectWithSubprotocols(url: string, protocols: string[]): TestWebSocketClient {
    return new TestWebSocketClient(new WebSocket(url, protocols));
  }

  /** Resolves once the upgrade completed (a refused handshake still opens, then closes). */
  opened(): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The first message (from `from` on) that matches; rejects after `timeoutMs` or when the socket closes. */
  async next(
    matches: (message: Record<string, unknown>) => boolean,
    options: { from?: number; timeoutMs?: number } = {},
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    for (;;) {
      const found = this.messages.slice(options.from ?? 0).find(matches);
      if (found) return found;
      if (this.socket.readyState === WebSocket.CLOSED) throw new Error('the socket closed');
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        throw new Error(`no matching message within the time; got ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, remaining);
        this.waiters.add(wake);
      });
    }
  }

  /** Sends a message and waits for the reply with op `op` that came after it. */
  async request(message: Record<string, unknown> | string, op: string): Promise<Record<string, unknown>> {
    const from = this.messages.length;
    this.send(message);
    return this.next((reply) => reply.op === op, { from });
  }

  close(): void {
    this.socket.close();
  }
}

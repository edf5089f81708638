/**
 * A fake WebSocket the tests drive from the server's side: it records how it was constructed and what the
 * client sent, and opens, sends, errs and closes on command.
 */
export class FakeWebSocket {
  static readonly instances: FakeWebSocket[] = [];
  readyState = 0;
  readonly sent: Record<string, unknown>[] = [];
  readonly args: unknown[];
  closedWith: { code?: number; reason?: string } | undefined;
  private readonly listeners = new Map<string, ((event: unknown) => void)[]>();

  constructor(...args: unknown[]) {
    this.args = args;
    FakeWebSocket.instances.push(this);
  }

  static latest(): FakeWebSocket {
    const socket = FakeWebSocket.instances.at(-1);
    if (!socket) throw new Error('no socket was opened');
    return socket;
  }

  addEventListener(type: string, listener: (event: unknown) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }

  close(code?: number, reason?: string): void {
    this.closedWith = { code, reason };
    this.serverClose(code ?? 1005, reason ?? '');
  }

  serverOpen(): void {
    this.readyState = 1;
    this.fire('open', {});
  }

  serverSend(message: unknown): void {
    this.fire('message', { data: JSON.stringify(message) });
  }

  serverError(message: string): void {
    this.fire('error', { message });
  }

  serverClose(code: number, reason = ''): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.fire('close', { code, reason });
  }

  private fire(type: string, event: unknown): void {
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }
}

/** A fake of the `ws` package's class: its sockets have `ping`, so the client sends headers. */
export class FakeNodeWebSocket extends FakeWebSocket {
  ping(): void {}
}

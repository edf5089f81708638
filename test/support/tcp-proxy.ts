import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a local port that a test can cut, as a network drop would: every open connection is
 * destroyed and new ones are dropped on arrival until the proxy is restored.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private up = true;

  private constructor(private readonly server: Server) {}

  static async start(targetPort: number): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server);
    server.on('connection', (downstream) => proxy.accept(downstream, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy is not listening');
    return address.port;
  }

  /** Drops every connection now, and each new one until `restore`. */
  cut(): void {
    this.up = false;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.up = true;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(downstream: Socket, targetPort: number): void {
    if (!this.up) {
      downstream.destroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    for (const [socket, other] of [
      [downstream, upstream],
      [upstream, downstream],
    ] as const) {
      this.sockets.add(socket);
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        this.sockets.delete(socket);
        other.destroy();
      });
    }
    downstream.pipe(upstream);
    upstream.pipe(downstream);
  }
}

import { createServer, Server, Socket, connect } from 'node:net';

/**
 * A TCP forwarder on loopback that stands for a gateway in front of several instances: every new
 * connection goes to the current target; `switchTo()` changes the target for the next connections and
 * `dropAll()` cuts the open ones (both sides reset), as when a gateway loses an instance. Clients see a
 * dropped connection and reconnect through the same address, to the new target.
 */
export class TcpSwitchProxy {
  private readonly open = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private target: URL,
  ) {}

  static async start(target: string): Promise<TcpSwitchProxy> {
    const server = createServer();
    const proxy = new TcpSwitchProxy(server, new URL(target));
    server.on('connection', (client) => proxy.forward(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  /** The next connections go to `target`. */
  switchTo(target: string): void {
    this.target = new URL(target);
  }

  /** Cuts every open connection. */
  dropAll(): void {
    for (const socket of this.open) socket.destroy();
    this.open.clear();
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private forward(client: Socket): void {
    const upstream = connect(Number(this.target.port), this.target.hostname);
    for (const socket of [client, upstream]) {
      this.open.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.open.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}

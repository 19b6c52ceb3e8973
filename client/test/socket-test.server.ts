import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Namespace, type Socket } from 'socket.io';
import type { AiClientToServerEvents, AiServerToClientEvents } from '../src/protocol';

export type TestServerSocket = Socket<AiClientToServerEvents, AiServerToClientEvents>;
type ClientEventName = keyof AiClientToServerEvents;
type Handler<E extends ClientEventName> = (
  socket: TestServerSocket,
  message: Parameters<AiClientToServerEvents[E]>[0],
) => void;

/**
 * A real Socket.IO server on a random port with namespace `/ai`, typed with the shared event maps, whose
 * answers each test scripts: the client under test talks to it over a real connection.
 */
export class SocketTestServer {
  /** Every client message received, in order, with the socket's handshake token. */
  readonly received: Array<{ event: ClientEventName; message: unknown; handshakeToken: unknown }> = [];
  readonly connections: TestServerSocket[] = [];
  private readonly handlers = new Map<ClientEventName, Handler<ClientEventName>>();

  private constructor(
    private readonly http: HttpServer,
    private readonly io: Server,
    readonly namespace: Namespace<AiClientToServerEvents, AiServerToClientEvents>,
    readonly url: string,
  ) {}

  /** `refuse`: handshake tokens refused at connection (connect_error "unauthorized"). */
  static async start(options: { refuse?: (token: unknown) => boolean } = {}): Promise<SocketTestServer> {
    const http = createServer();
    const io = new Server(http);
    const namespace = io.of('/ai') as Namespace<AiClientToServerEvents, AiServerToClientEvents>;
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const server = new SocketTestServer(
      http,
      io,
      namespace,
      `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    );
    namespace.use((socket, next) =>
      options.refuse?.(socket.handshake.auth.token) ? next(new Error('unauthorized')) : next(),
    );
    namespace.on('connection', (socket) => {
      server.connections.push(socket);
      for (const event of ['ai:chat', 'ai:resume', 'ai:interrupt', 'ai:rejoin'] as const) {
        (socket as unknown as { on(event: string, listener: (message: unknown) => void): void }).on(
          event,
          (message) => {
            server.received.push({ event, message, handshakeToken: socket.handshake.auth.token });
            server.handlers.get(event)?.(socket, message as never);
          },
        );
      }
    });
    return server;
  }

  on<E extends ClientEventName>(event: E, handler: Handler<E>): void {
    this.handlers.set(event, handler as Handler<ClientEventName>);
  }

  messages<E extends ClientEventName>(event: E): Array<Parameters<AiClientToServerEvents[E]>[0]> {
    return this.received
      .filter((entry) => entry.event === event)
      .map((entry) => entry.message as Parameters<AiClientToServerEvents[E]>[0]);
  }

  /** Resolves once `count` messages of `event` arrived. */
  async waitFor(event: ClientEventName, count = 1, timeoutMs = 3000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.filter((entry) => entry.event === event).length < count) {
      if (Date.now() > deadline)
        throw new Error(`SocketTestServer: fewer than ${count} ${event} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  async close(): Promise<void> {
    await this.io.close();
    this.http.closeAllConnections();
  }
}

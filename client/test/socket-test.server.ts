import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Namespace, type Socket } from 'socket.io';
import type { AiClientToServerEvents, AiServerToClientEvents } from '../src/protocol';

export type TestServerSocket = Socket<AiClientToServerEvents, AiServerToClientEvents>;
type ClientEventName = keyof AiClientToServerEvents;
type Handler<E extends ClientEventName> = (
  socket: TestServerSocket,
  message: Parameters<AiClientToServerEvents[E]>[0],
) => void;

/** A REST answer a test scripts: its status and JSON body (none for 204). */
export interface TestRestAnswer {
  status: number;
  body?: unknown;
}
export type TestRestHandler = (request: { body: unknown; authorization: string | undefined }) => TestRestAnswer;

/**
 * A real Socket.IO server on a random port with namespace `/ai`, typed with the shared event maps, whose
 * answers each test scripts: the client under test talks to it over a real connection. The same HTTP server answers
 * the REST routes a test scripts with `route()` (404 for any other).
 */
export class SocketTestServer {
  /** Every client message received, in order, with the socket's handshake token. */
  readonly received: Array<{ event: ClientEventName; message: unknown; handshakeToken: unknown }> = [];
  readonly connections: TestServerSocket[] = [];
  /** Every REST request received, in order. */
  readonly restRequests: Array<{ method: string; path: string; body: unknown; authorization: string | undefined }> = [];
  private readonly handlers = new Map<ClientEventName, Handler<ClientEventName>>();
  private readonly routes = new Map<string, TestRestHandler>();

  private constructor(
    private readonly http: HttpServer,
    private readonly io: Server,
    readonly namespace: Namespace<AiClientToServerEvents, AiServerToClientEvents>,
    readonly url: string,
  ) {}

  /** `refuse`: handshake tokens refused at connection (connect_error "unauthorized"). */
  static async start(options: { refuse?: (token: unknown) => boolean } = {}): Promise<SocketTestServer> {
    let answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
    // Socket.IO answers its own path first; every other request comes here.
    const http = createServer((req, res) => answer(req, res));
    const io = new Server(http);
    const namespace = io.of('/ai') as Namespace<AiClientToServerEvents, AiServerToClientEvents>;
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const server = new SocketTestServer(
      http,
      io,
      namespace,
      `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    );
    answer = (req, res) => server.answerRest(req, res);
    namespace.use((socket, next) =>
      options.refuse?.(socket.handshake.auth.token) ? next(new Error('unauthorized')) : next(),
    );
    namespace.on('connection', (socket) => {
      server.connections.push(socket);
      for (const event of ['ai:chat', 'ai:resume', 'ai:interrupt', 'ai:rejoin', 'ai:undo', 'ai:restore'] as const) {
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

  /** Scripts the answer of one REST route, e.g. `route('GET', '/api/ai/thread/ai_t/changes', () => ({ status: 200, body: [] }))`. */
  route(method: string, path: string, handler: TestRestHandler): void {
    this.routes.set(`${method} ${path}`, handler);
  }

  private answerRest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body: unknown = text.length > 0 ? JSON.parse(text) : undefined;
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const authorization = req.headers.authorization;
      this.restRequests.push({ method, path, body, authorization });
      const handler = this.routes.get(`${method} ${path}`);
      const answer = handler
        ? handler({ body, authorization })
        : { status: 404, body: { statusCode: 404, code: 'not_found', message: `No route ${method} ${path}` } };
      if (answer.body === undefined) {
        res.writeHead(answer.status).end();
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
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

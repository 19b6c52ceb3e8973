import { Test } from '@nestjs/testing';
import jwt from 'jsonwebtoken';
import { createServer, Server as HttpServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { io, Socket as ClientSocket } from 'socket.io-client';
import { AuthModule } from '../../src/auth/auth.module';
import { SocketAuthenticator } from '../../src/auth/socket.authenticator';
import { AppConfigModule } from '../../src/config/app-config.module';
import { loadAppConfig } from '../../src/config/load-app-config';
import { AppError } from '../../src/errors/app-error';
import { resetLogSink, setLogSink } from '../../src/observability/logger';

const SECRET = 'socket-e2e-secret-of-32-chars!!!';

interface WhoamiAnswer {
  principal?: unknown;
  code?: string;
}

/**
 * A bare Socket.IO server with the `/ai` namespace wired exactly as the gateway wires it
 * (`afterInit(server) { server.use(authenticator.middleware()) }`), and one probe event that resolves
 * the principal of a message the way an `ai:*` handler does.
 */
async function startProbeServer(env: Record<string, string>): Promise<{ url: string; close: () => Promise<void> }> {
  const config = loadAppConfig({ NODE_ENV: 'test', LOG_LEVEL: 'error', ...env });
  const moduleRef = await Test.createTestingModule({
    imports: [AppConfigModule.forRoot(config), AuthModule],
  }).compile();
  const authenticator = moduleRef.get(SocketAuthenticator);
  const httpServer: HttpServer = createServer();
  const server = new Server(httpServer);
  const namespace = server.of('/ai');
  namespace.use(authenticator.middleware());
  namespace.on('connection', (socket) => {
    socket.on('whoami', (payload: { token?: string }, ack: (answer: WhoamiAnswer) => void) => {
      try {
        ack({ principal: authenticator.principalForMessage(socket, payload.token) });
      } catch (error) {
        ack({ code: error instanceof AppError ? error.code : 'internal' });
      }
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/ai`,
    close: async () => {
      await server.close();
      await moduleRef.close();
    },
  };
}

function connect(url: string, options: Parameters<typeof io>[1]): Promise<ClientSocket> {
  const socket = io(url, { reconnection: false, forceNew: true, ...options });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}

type ConnectError = Error & { data?: { code: string; message: string } };

async function connectError(url: string, options: Parameters<typeof io>[1]): Promise<ConnectError> {
  try {
    (await connect(url, options)).close();
  } catch (error) {
    return error as ConnectError;
  }
  throw new Error('the socket connected');
}

function token(claims: object, options: jwt.SignOptions = {}): string {
  return jwt.sign(claims, SECRET, { expiresIn: 600, ...options });
}

describe(`${SocketAuthenticator.name} on a Socket.IO namespace`, () => {
  const sockets: ClientSocket[] = [];
  beforeAll(() => setLogSink(() => undefined));
  afterAll(() => resetLogSink());
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close();
  });

  describe('AUTH_MODE=jwt', () => {
    let server: { url: string; close: () => Promise<void> };
    beforeAll(async () => {
      server = await startProbeServer({ AUTH_MODE: 'jwt', JWT_SECRET: SECRET });
    });
    afterAll(() => server.close());

    it.each([
      ['no token', {}, 'Missing token'],
      [
        'an expired token',
        { auth: { token: token({ sub: 'u', workspace: 'w' }, { expiresIn: -5 }) } },
        'Token expired',
      ],
      [
        'a forged token',
        { auth: { token: jwt.sign({ sub: 'u', workspace: 'w' }, 'forged-secret-of-32-characters!!') } },
        'Invalid token',
      ],
    ])('refuses a socket with %s: connect_error "unauthorized"', async (_name, options, reason) => {
      const error = await connectError(server.url, options);
      expect(error.message).toBe('unauthorized');
      expect(error.data).toEqual({ code: 'unauthorized', message: reason });
    });

    it.each([['websocket'], ['polling']])('accepts auth: { token } over %s', async (transport) => {
      const socket = await connect(server.url, {
        transports: [transport],
        auth: { token: token({ sub: 'u1', workspace: 'acme', role: 'editor' }) },
      });
      sockets.push(socket);
      const answer = (await socket.emitWithAck('whoami', {})) as WhoamiAnswer;
      expect(answer.principal).toEqual({ userId: 'u1', workspace: 'acme', role: 'editor' });
    });

    it('accepts an Authorization: Bearer handshake header', async () => {
      const socket = await connect(server.url, {
        transports: ['polling'],
        extraHeaders: { Authorization: `Bearer ${token({ sub: 'u2', workspace: 'acme' })}` },
      });
      sockets.push(socket);
      const answer = (await socket.emitWithAck('whoami', {})) as WhoamiAnswer;
      expect(answer.principal).toEqual({ userId: 'u2', workspace: 'acme', role: 'viewer' });
    });

    it('lets a per-message token override the handshake principal for that message only', async () => {
      const socket = await connect(server.url, { auth: { token: token({ sub: 'u1', workspace: 'acme' }) } });
      sockets.push(socket);
      const override = token({ sub: 'u9', workspace: 'beta', role: 'admin' });
      expect(await socket.emitWithAck('whoami', { token: override })).toEqual({
        principal: { userId: 'u9', workspace: 'beta', role: 'admin' },
      });
      expect(await socket.emitWithAck('whoami', {})).toEqual({
        principal: { userId: 'u1', workspace: 'acme', role: 'viewer' },
      });
      expect(await socket.emitWithAck('whoami', { token: 'garbage' })).toEqual({ code: 'unauthorized' });
      expect(socket.connected).toBe(true);
    });
  });

  it('connects anyone as the anonymous admin with AUTH_MODE=none', async () => {
    const server = await startProbeServer({ AUTH_MODE: 'none' });
    try {
      const socket = await connect(server.url, {});
      sockets.push(socket);
      expect(await socket.emitWithAck('whoami', { token: 'ignored' })).toEqual({
        principal: { userId: 'anonymous', workspace: 'default', role: 'admin' },
      });
    } finally {
      for (const socket of sockets.splice(0)) socket.close();
      await server.close();
    }
  });
});

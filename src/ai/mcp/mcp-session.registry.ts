import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../auth/principal';
import { Logger } from '../../observability/logger';
import type { McpSessionRecord, McpSessionRepository } from './mcp-session.repository';

/** A session unused this long is closed (its client reinitializes on its next request: 404 tells it to). */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;
/** Open sessions per user and workspace on one instance; opening one more closes the least recently used. */
export const MCP_SESSIONS_PER_PRINCIPAL = 8;

export type McpTransport = WebStandardStreamableHTTPServerTransport;

interface McpSession {
  readonly id: string;
  readonly userId: string;
  readonly workspace: string;
  readonly server: Server;
  readonly transport: McpTransport;
  lastSeen: number;
}

const logger = new Logger('mcp');

/**
 * The MCP sessions this instance serves. Streamable HTTP keeps one server per session in memory (the client's answer
 * to an elicitation comes back on the session's next POST, to the server that asked). With a shared repository
 * (Redis), every session opened on any instance is recorded there, and an instance asked for a session it does not
 * hold recreates it: a new server and transport of the SDK, into which it replays the client's recorded `initialize`
 * (so the server knows the protocol version and the client's capabilities, and the transport the session id), then
 * serves the request. A session belongs to the user and workspace that opened it: another principal naming it finds
 * nothing, as if it did not exist. Idle sessions are closed (here) and expire (in the repository); each principal has
 * a bounded number of them on one instance.
 */
export class McpSessionRegistry {
  private readonly sessions = new Map<string, McpSession>();
  /** Sessions being recreated: concurrent requests of one session wait for the same one. */
  private readonly adopting = new Map<string, Promise<McpTransport | null>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly createServer: () => Server,
    private readonly shared: McpSessionRepository | null = null,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.closeIdle(), Math.min(MCP_SESSION_IDLE_MS, 60_000));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** A new session's transport for an `initialize` request: registered (and shared) once the SDK has given it its id. */
  async open(principal: Principal, initialize: JSONRPCRequest): Promise<McpTransport> {
    // Recorded before the answer to `initialize` goes out (the SDK awaits it), so the client's next request finds it.
    return this.connect(
      principal,
      () => randomUUID(),
      async (id) => {
        try {
          await this.shared?.save(recordOf(id, principal, initialize), MCP_SESSION_IDLE_MS);
        } catch (error) {
          // The session works on this instance while Redis is away; no other one can take it over.
          logger.warn('mcp_session_not_shared', { error: messageOf(error) });
        }
      },
    );
  }

  /**
   * The session `id` of this principal's user and workspace (null otherwise), marked as used now: this instance's own,
   * or one recorded by another instance, recreated here.
   */
  async find(id: string, principal: Principal): Promise<McpTransport | null> {
    const local = this.sessions.get(id);
    if (local) {
      if (!ownedBy(local, principal)) return null;
      local.lastSeen = this.now();
      if (await this.stillShared(local)) return local.transport;
      void this.close(local);
      return null;
    }
    const record = await this.load(id);
    if (!record || !ownedBy(record, principal)) return null;
    const adopted = this.sessions.get(id)?.transport;
    if (adopted) return adopted;
    let adopting = this.adopting.get(id);
    if (!adopting) {
      adopting = this.adopt(record, principal)
        .catch((error: unknown) => {
          // As for an unknown session: the client reinitializes.
          logger.warn('mcp_session_not_adopted', { error: messageOf(error) });
          return null;
        })
        .finally(() => this.adopting.delete(id));
      this.adopting.set(id, adopting);
    }
    return adopting;
  }

  /** The client ended the session (DELETE, handled by its transport here): no other instance may serve it either. */
  async end(id: string): Promise<void> {
    await this.shared?.remove(id).catch((error: unknown) => {
      logger.warn('mcp_session_end_not_shared', { error: messageOf(error) });
    });
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((session) => this.close(session)));
  }

  private async load(id: string): Promise<McpSessionRecord | null> {
    if (!this.shared) return null;
    try {
      return await this.shared.load(id);
    } catch (error) {
      // Redis unavailable: as for an unknown session, the client reinitializes (here, where it then works).
      logger.warn('mcp_session_lookup_failed', { error: messageOf(error) });
      return null;
    }
  }

  /**
   * Recreates a session recorded by another instance: the SDK's transport with the session's id, and its
   * `initialize` replayed through it as the client sent it (its answer is not sent anywhere: the client had it).
   */
  private async adopt(record: McpSessionRecord, principal: Principal): Promise<McpTransport> {
    const transport = await this.connect(
      principal,
      () => record.id,
      () => undefined,
    );
    const replayed = await transport.handleRequest(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(record.initialize),
      }),
      { parsedBody: record.initialize },
    );
    await replayed.text();
    if (!replayed.ok) throw new Error(`The recorded initialize of an MCP session was refused (${replayed.status})`);
    logger.debug('mcp_session_adopted', { userId: principal.userId });
    this.shared?.touch(record.id, MCP_SESSION_IDLE_MS).catch(() => undefined);
    return transport;
  }

  private async connect(
    principal: Principal,
    sessionId: () => string,
    initialized: (id: string) => Promise<void> | void,
  ): Promise<McpTransport> {
    const server = this.createServer();
    const transport: McpTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: sessionId,
      onsessioninitialized: (id) => {
        this.register({ id, principal, server, transport });
        return initialized(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId && this.sessions.get(transport.sessionId)?.transport === transport)
        this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  }

  private register(opened: { id: string; principal: Principal; server: Server; transport: McpTransport }) {
    const { id, principal, server, transport } = opened;
    const own = [...this.sessions.values()]
      .filter((session) => ownedBy(session, principal))
      .sort((a, b) => a.lastSeen - b.lastSeen);
    for (const session of own.slice(0, Math.max(0, own.length - MCP_SESSIONS_PER_PRINCIPAL + 1)))
      void this.close(session);
    this.sessions.set(id, {
      id,
      userId: principal.userId,
      workspace: principal.workspace,
      server,
      transport,
      lastSeen: this.now(),
    });
  }

  /**
   * A session held here is still recorded (pushed back): not ended on another instance, not expired. Without a shared
   * repository, or while it is unavailable, the session is this instance's to serve.
   */
  private async stillShared(session: McpSession): Promise<boolean> {
    if (!this.shared) return true;
    try {
      return await this.shared.touch(session.id, MCP_SESSION_IDLE_MS);
    } catch (error) {
      logger.warn('mcp_session_lookup_failed', { error: messageOf(error) });
      return true;
    }
  }

  private closeIdle(): void {
    const oldest = this.now() - MCP_SESSION_IDLE_MS;
    for (const session of this.sessions.values()) if (session.lastSeen < oldest) void this.close(session);
  }

  /** Closes this instance's server of the session; the shared record stays (another instance may serve it). */
  private async close(session: McpSession): Promise<void> {
    this.sessions.delete(session.id);
    try {
      await session.server.close();
    } catch (error) {
      logger.warn('mcp_session_close_failed', { error: messageOf(error) });
    }
  }
}

function ownedBy(session: { userId: string; workspace: string }, principal: Principal): boolean {
  return session.userId === principal.userId && session.workspace === principal.workspace;
}

function recordOf(id: string, principal: Principal, initialize: JSONRPCRequest): McpSessionRecord {
  return { id, userId: principal.userId, workspace: principal.workspace, initialize };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

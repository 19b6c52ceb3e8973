import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Principal } from '../../auth/principal';
import { Logger } from '../../observability/logger';

/** A session unused this long is closed (its client reinitializes on its next request: 404 tells it to). */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;
/** Open sessions per user and workspace; opening one more closes the least recently used. */
export const MCP_SESSIONS_PER_PRINCIPAL = 8;

interface McpSession {
  readonly id: string;
  readonly userId: string;
  readonly workspace: string;
  readonly server: Server;
  readonly transport: StreamableHTTPServerTransport;
  lastSeen: number;
}

const logger = new Logger('mcp');

/**
 * The MCP sessions open on this instance (Streamable HTTP keeps one server per session, in memory: the client's
 * answers to an elicitation come back on the session's next POST). A session belongs to the user and workspace that
 * opened it: another principal naming it finds nothing, as if it did not exist. Idle sessions are closed, and each
 * principal has a bounded number of them.
 */
export class McpSessionRegistry {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly createServer: () => Server,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.closeIdle(), Math.min(MCP_SESSION_IDLE_MS, 60_000));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** A new session's transport for an `initialize` request: registered once the SDK has given it its id. */
  async open(principal: Principal): Promise<StreamableHTTPServerTransport> {
    const server = this.createServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => this.register({ id, principal, server, transport }),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  }

  /** The session `id` of this principal's user and workspace (null otherwise), marked as used now. */
  find(id: string, principal: Principal): StreamableHTTPServerTransport | null {
    const session = this.sessions.get(id);
    if (!session || session.userId !== principal.userId || session.workspace !== principal.workspace) return null;
    session.lastSeen = this.now();
    return session.transport;
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((session) => this.close(session)));
  }

  private register(opened: {
    id: string;
    principal: Principal;
    server: Server;
    transport: StreamableHTTPServerTransport;
  }) {
    const { id, principal, server, transport } = opened;
    const own = [...this.sessions.values()]
      .filter((session) => session.userId === principal.userId && session.workspace === principal.workspace)
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

  private closeIdle(): void {
    const oldest = this.now() - MCP_SESSION_IDLE_MS;
    for (const session of this.sessions.values()) if (session.lastSeen < oldest) void this.close(session);
  }

  private async close(session: McpSession): Promise<void> {
    this.sessions.delete(session.id);
    try {
      await session.server.close();
    } catch (error) {
      logger.warn('mcp_session_close_failed', { error: error instanceof Error ? error.message : String(error) });
    }
  }
}

import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

/**
 * What any instance needs to serve an MCP session it did not open: who opened it (only they may use it) and the
 * client's `initialize` request as it came, which the instance replays into a new server of its own (the protocol
 * version, the client's capabilities, such as elicitation, and its name).
 */
export interface McpSessionRecord {
  id: string;
  userId: string;
  workspace: string;
  initialize: JSONRPCRequest;
}

/** The MCP sessions shared by every instance (Redis): kept while used, gone after `idleMs` without use. */
export interface McpSessionRepository {
  save(record: McpSessionRecord, idleMs: number): Promise<void>;
  /** The session, or null when it never was, expired, or was ended. */
  load(id: string): Promise<McpSessionRecord | null>;
  /** The session was used: it lives `idleMs` from now. False: it is gone (ended, expired). */
  touch(id: string, idleMs: number): Promise<boolean>;
  /** The client ended it (DELETE /mcp): no instance serves it any more. */
  remove(id: string): Promise<void>;
}

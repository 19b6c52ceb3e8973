import { isInitializeRequest, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { QuietRedis } from '../../redis/redis-client';
import type { McpSessionRecord, McpSessionRepository } from './mcp-session.repository';

const keyOf = (id: string) => `graph-ai:mcp-session:${id}`;

/** One key per session (`graph-ai:mcp-session:<id>`, the record as JSON), expiring after the idle time. */
export class RedisMcpSessionRepository implements McpSessionRepository {
  constructor(private readonly redis: QuietRedis) {}

  async save(record: McpSessionRecord, idleMs: number): Promise<void> {
    await this.redis.set(keyOf(record.id), JSON.stringify(record), 'PX', idleMs);
  }

  async load(id: string): Promise<McpSessionRecord | null> {
    const value = await this.redis.get(keyOf(id));
    if (value === null) return null;
    const record = JSON.parse(value) as Partial<McpSessionRecord>;
    // A key of another shape is no session of ours: nothing to serve.
    if (
      record.id !== id ||
      typeof record.userId !== 'string' ||
      typeof record.workspace !== 'string' ||
      !isJSONRPCRequest(record.initialize) ||
      !isInitializeRequest(record.initialize)
    )
      return null;
    return record as McpSessionRecord;
  }

  async touch(id: string, idleMs: number): Promise<boolean> {
    return (await this.redis.pexpire(keyOf(id), idleMs)) === 1;
  }

  async remove(id: string): Promise<void> {
    await this.redis.del(keyOf(id));
  }
}

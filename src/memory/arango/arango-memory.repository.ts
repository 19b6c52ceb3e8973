import { Database } from 'arangojs';
import { AppError } from '../../errors/app-error';
import { ArangoThreadQueryRunner } from '../../threads/arango/arango-thread-query.runner';
import { hashedDocumentKey } from '../../database/arango/arango-hashed.key';
import {
  EMPTY_MEMORY_CURSOR,
  MemoryCursor,
  MemoryFilter,
  MemoryLevel,
  MemoryRecord,
  MemoryVector,
  NodeMention,
} from '../memory-record';
import { MemoryRepository } from '../memory.repository';
import { ArangoMemoryDocument, ArangoMemoryDocumentMapper } from './arango-memory-document.mapper';
import { ARANGO_MEMORY_NAMES } from './arango-memory.names';
import { ArangoMemoryQueries } from './arango-memory.queries';
import { ArangoMemorySchema } from './arango-memory.schema';
import { runArangoSchemaSetup } from '../../database/arango/arango-schema.setup';

/** Node keys per query when listing mentions of many nodes (bind variables stay small). */
const KEYS_PER_QUERY = 1000;

/**
 * MemoryRepository on ArangoDB (STORE=arango): records in `nodius_ai_memory`, one cursor document per
 * thread with memory in `nodius_ai_memory_cursors` (which, once the thread's memory is deleted, is the
 * mark that refuses its later inserts). Each method is one AQL query (a record and its cursor are written
 * by the same query). Writes that lose a race with another instance (write-write
 * conflict on a cursor) run again; an unreachable server is `store_unavailable` (503, retryable).
 * The connection belongs to DatabaseModule.
 */
export class ArangoMemoryRepository implements MemoryRepository {
  private readonly queries: ArangoMemoryQueries;
  private readonly runner: ArangoThreadQueryRunner;

  constructor(db: Database, runner: ArangoThreadQueryRunner = new ArangoThreadQueryRunner(db)) {
    this.queries = new ArangoMemoryQueries({
      records: db.collection(ARANGO_MEMORY_NAMES.records),
      cursors: db.collection(ARANGO_MEMORY_NAMES.cursors),
    });
    this.runner = runner;
  }

  /** Ensures the collections and indexes (idempotent, race-safe), then returns the repository. */
  static async open(db: Database): Promise<ArangoMemoryRepository> {
    await runArangoSchemaSetup(db, 'memory schema', () => new ArangoMemorySchema(db).ensure());
    return new ArangoMemoryRepository(db);
  }

  async insert(record: MemoryRecord): Promise<boolean> {
    const query = this.queries.insert(
      ArangoMemoryDocumentMapper.toDocument(record),
      cursorKey(record.workspace, record.threadId),
    );
    const [outcome] = await this.runner.withRetries('memory.insert', (run) =>
      run<{ written: boolean; deleted: boolean }>(query),
    );
    if (outcome?.deleted)
      throw AppError.notFound(`The memory of thread "${record.threadId}" was deleted: the record is not written`);
    return outcome?.written === true;
  }

  async setEmbedding(workspace: string, memoryId: string, embedding: Float32Array, model: string): Promise<void> {
    const query = this.queries.setEmbedding(workspace, memoryId, Array.from(embedding), model);
    await this.runner.withRetries('memory.setEmbedding', async (run) => {
      await run(query);
    });
  }

  async list(workspace: string, threadId: string, filter: MemoryFilter = {}): Promise<MemoryRecord[]> {
    const documents = await this.runner.all<ArangoMemoryDocument>(
      'memory.list',
      this.queries.list(workspace, threadId, filter),
    );
    return documents.map((document) => ArangoMemoryDocumentMapper.toRecord(document));
  }

  async vectors(workspace: string, threadId: string, model: string): Promise<MemoryVector[]> {
    const rows = await this.runner.all<{ memoryId: string; level: MemoryLevel; embedding: number[] }>(
      'memory.vectors',
      this.queries.vectors(workspace, threadId, model),
    );
    return rows.map((row) => ({
      memoryId: row.memoryId,
      level: row.level,
      embedding: Float32Array.from(row.embedding),
    }));
  }

  async cursor(workspace: string, threadId: string): Promise<MemoryCursor> {
    const [cursor] = await this.runner.all<MemoryCursor>(
      'memory.cursor',
      this.queries.cursor(workspace, cursorKey(workspace, threadId)),
    );
    return cursor ? { level1End: cursor.level1End ?? 0, level2End: cursor.level2End ?? 0 } : { ...EMPTY_MEMORY_CURSOR };
  }

  async mentions(workspace: string, graphKey: string, nodeKeys: readonly string[] | 'all'): Promise<NodeMention[]> {
    if (nodeKeys === 'all')
      return this.runner.all<NodeMention>('memory.mentions', this.queries.allMentions(workspace, graphKey));
    const result: NodeMention[] = [];
    for (let start = 0; start < nodeKeys.length; start += KEYS_PER_QUERY) {
      const query = this.queries.mentionsOf(workspace, graphKey, nodeKeys.slice(start, start + KEYS_PER_QUERY));
      result.push(...(await this.runner.all<NodeMention>('memory.mentions', query)));
    }
    return result;
  }

  async markStale(workspace: string, graphKey: string, outdated: readonly NodeMention[], now: number): Promise<number> {
    if (outdated.length === 0) return 0;
    const query = this.queries.markStale(workspace, graphKey, outdated, now);
    return this.runner.withRetries('memory.markStale', async (run) => (await run(query)).length);
  }

  async markRecordsStale(workspace: string, memoryIds: readonly string[], now: number): Promise<number> {
    if (memoryIds.length === 0) return 0;
    const query = this.queries.markRecordsStale(workspace, memoryIds, now);
    return this.runner.withRetries('memory.markStale', async (run) => (await run(query)).length);
  }

  async deleteThread(workspace: string, threadId: string): Promise<number> {
    const query = this.queries.deleteThread(workspace, threadId, cursorKey(workspace, threadId), Date.now());
    return this.runner.withRetries('memory.deleteThread', async (run) => (await run<number>(query))[0] ?? 0);
  }

  async trim(level: MemoryLevel, before: number): Promise<number> {
    const query = this.queries.trim(level, before);
    return this.runner.withRetries('memory.trim', async (run) => (await run(query)).length);
  }

  async forgetDeletedThreads(before: number): Promise<number> {
    const query = this.queries.forgetDeletedThreads(before);
    return this.runner.withRetries('memory.forgetDeletedThreads', async (run) => (await run(query)).length);
  }
}

function cursorKey(workspace: string, threadId: string): string {
  return hashedDocumentKey('mc', [workspace, threadId]);
}

import type { Database, Statement } from 'better-sqlite3';
import { AppError } from '../../errors/app-error';
import { decodeVector, encodeVector } from '../../graph/sqlite/sqlite-graph.codec';
import {
  EMPTY_MEMORY_CURSOR,
  MemoryCursor,
  MemoryFilter,
  MemoryLevel,
  MemoryRecord,
  MemoryVector,
  NodeMention,
  SummaryAuthor,
} from '../memory-record';
import { MemoryRepository } from '../memory.repository';

interface MemoryRow {
  memory_id: string;
  workspace: string;
  thread_id: string;
  graph_key: string;
  level: MemoryLevel;
  created_time: number;
  created_at: string;
  text: string;
  turn_id: string | null;
  char_start: number;
  char_end: number;
  parent_ids: string;
  key_findings: string;
  tools_used: string;
  topics: string;
  author: SummaryAuthor | null;
  embedding: Buffer | null;
  embedding_model: string | null;
  stale: number;
  stale_time: number | null;
}

/** SQLite has a limit on bound parameters per statement; lists of node keys are sent in chunks. */
const KEYS_PER_STATEMENT = 500;

/**
 * MemoryRepository on the embedded SQLite file (tables of MEMORY_TABLES_MIGRATION). Writes that touch
 * several rows are one `BEGIN IMMEDIATE` transaction. Records belong to their thread (foreign keys): an
 * insert for a thread that is gone is refused (not_found), and deleting the thread's row deletes whatever
 * memory it still has, so deleteThread needs no mark of its own. The connection belongs to DatabaseModule.
 */
export class SqliteMemoryRepository implements MemoryRepository {
  private readonly statements: ReturnType<typeof prepare>;
  private readonly insertRecord: (record: MemoryRecord) => boolean;
  private readonly markStaleIn: (
    workspace: string,
    graphKey: string,
    outdated: readonly NodeMention[],
    now: number,
  ) => number;
  private readonly markRecordsStaleIn: (workspace: string, memoryIds: readonly string[], now: number) => number;
  private readonly readList: (params: Record<string, unknown>, vectors: boolean) => MemoryRecord[];

  constructor(private readonly db: Database) {
    this.statements = prepare(db);
    this.insertRecord = db.transaction((record: MemoryRecord) => this.insertIn(record)).immediate;
    // One read transaction: the records and their mentions (one query each, grouped here) are of the same state.
    this.readList = db.transaction((params: Record<string, unknown>, vectors: boolean) => {
      const mentions = new Map<string, NodeMention[]>();
      for (const row of this.statements.threadMentions.all(params) as Array<{
        memory_id: string;
        node_key: string;
        fingerprint: string;
      }>) {
        const list = mentions.get(row.memory_id) ?? [];
        list.push({ key: row.node_key, fingerprint: row.fingerprint });
        mentions.set(row.memory_id, list);
      }
      const rows = (vectors ? this.statements.list : this.statements.listWithoutVectors).all(params) as MemoryRow[];
      return rows.map((row) => toRecord(row, mentions.get(row.memory_id) ?? []));
    });
    this.markStaleIn = db.transaction(
      (workspace: string, graphKey: string, outdated: readonly NodeMention[], now: number) => {
        const memoryIds = new Set<string>();
        for (const mention of outdated) {
          const rows = this.statements.staleCandidates.all({
            workspace,
            graph_key: graphKey,
            node_key: mention.key,
            fingerprint: mention.fingerprint,
          }) as Array<{ memory_id: string }>;
          for (const row of rows) memoryIds.add(row.memory_id);
        }
        return this.markWithSummaries(workspace, memoryIds, now);
      },
    ).immediate;
    this.markRecordsStaleIn = db.transaction((workspace: string, memoryIds: readonly string[], now: number) =>
      this.markWithSummaries(workspace, new Set(memoryIds), now),
    ).immediate;
  }

  async insert(record: MemoryRecord): Promise<boolean> {
    return this.insertRecord(record);
  }

  async setEmbedding(workspace: string, memoryId: string, embedding: Float32Array, model: string): Promise<void> {
    this.statements.setEmbedding.run(encodeVector(embedding), model, memoryId, workspace);
  }

  async list(workspace: string, threadId: string, filter: MemoryFilter = {}): Promise<MemoryRecord[]> {
    const params = {
      workspace,
      thread_id: threadId,
      level: filter.level ?? null,
      since: filter.since ?? null,
      until: filter.until ?? null,
      model: filter.needingEmbeddingBy ?? null,
      ids: filter.memoryIds ? JSON.stringify(filter.memoryIds) : null,
    };
    return this.readList(params, filter.vectors !== false);
  }

  async vectors(workspace: string, threadId: string, model: string): Promise<MemoryVector[]> {
    const rows = this.statements.vectors.all(workspace, threadId, model) as Array<{
      memory_id: string;
      level: MemoryLevel;
      embedding: Buffer;
    }>;
    return rows.map((row) => ({ memoryId: row.memory_id, level: row.level, embedding: decodeVector(row.embedding) }));
  }

  async cursor(workspace: string, threadId: string): Promise<MemoryCursor> {
    const row = this.statements.cursor.get(threadId, workspace) as
      { level1_end: number; level2_end: number } | undefined;
    return row ? { level1End: row.level1_end, level2End: row.level2_end } : { ...EMPTY_MEMORY_CURSOR };
  }

  async mentions(workspace: string, graphKey: string, nodeKeys: readonly string[] | 'all'): Promise<NodeMention[]> {
    if (nodeKeys === 'all') {
      const rows = this.statements.allMentions.all(workspace, graphKey) as Array<{
        node_key: string;
        fingerprint: string;
      }>;
      return rows.map((row) => ({ key: row.node_key, fingerprint: row.fingerprint }));
    }
    const result: NodeMention[] = [];
    for (let start = 0; start < nodeKeys.length; start += KEYS_PER_STATEMENT) {
      const keys = nodeKeys.slice(start, start + KEYS_PER_STATEMENT);
      const rows = this.statements.mentionsOf.all(workspace, graphKey, JSON.stringify(keys)) as Array<{
        node_key: string;
        fingerprint: string;
      }>;
      result.push(...rows.map((row) => ({ key: row.node_key, fingerprint: row.fingerprint })));
    }
    return result;
  }

  async markStale(workspace: string, graphKey: string, outdated: readonly NodeMention[], now: number): Promise<number> {
    return outdated.length === 0 ? 0 : this.markStaleIn(workspace, graphKey, outdated, now);
  }

  async markRecordsStale(workspace: string, memoryIds: readonly string[], now: number): Promise<number> {
    return memoryIds.length === 0 ? 0 : this.markRecordsStaleIn(workspace, memoryIds, now);
  }

  async deleteThread(workspace: string, threadId: string): Promise<number> {
    return this.db
      .transaction(() => {
        // Children first, explicitly: correct even on a connection without foreign_keys=ON.
        this.statements.deleteThreadMentions.run(threadId, workspace);
        this.statements.deleteCursor.run(threadId, workspace);
        return this.statements.deleteThreadRecords.run(threadId, workspace).changes;
      })
      .immediate();
  }

  async trim(level: MemoryLevel, before: number): Promise<number> {
    const { trimMentions, trimRecords } =
      level === 1
        ? { trimMentions: this.statements.trimCoveredMentions, trimRecords: this.statements.trimCoveredRecords }
        : this.statements;
    return this.db
      .transaction(() => {
        trimMentions.run(level, before);
        return trimRecords.run(level, before).changes;
      })
      .immediate();
  }

  /** Nothing to forget: a deleted thread's row is gone, and that is what refuses its inserts. */
  async forgetDeletedThreads(): Promise<number> {
    return 0;
  }

  /** Marks the records and, thread by thread, every summary whose sources are marked (level 1, then level 2). */
  private markWithSummaries(workspace: string, memoryIds: Set<string>, now: number): number {
    if (memoryIds.size === 0) return 0;
    const threads = this.statements.threadsOf.all(workspace, JSON.stringify([...memoryIds])) as Array<{
      thread_id: string;
    }>;
    for (const { thread_id: threadId } of threads) {
      const summaries = this.statements.summariesOf.all(workspace, threadId) as Array<{
        memory_id: string;
        parent_ids: string;
      }>;
      for (const summary of summaries) {
        if ((JSON.parse(summary.parent_ids) as string[]).some((parent) => memoryIds.has(parent)))
          memoryIds.add(summary.memory_id);
      }
    }
    return this.statements.markRecordsStale.run({ workspace, ids: JSON.stringify([...memoryIds]), now }).changes;
  }

  private insertIn(record: MemoryRecord): boolean {
    if (!this.statements.threadExists.get(record.threadId, record.workspace))
      throw AppError.notFound(`Thread "${record.threadId}" no longer exists: its memory is not written`);
    const inserted = this.statements.insert.run({
      memory_id: record.memoryId,
      workspace: record.workspace,
      thread_id: record.threadId,
      graph_key: record.graphKey,
      level: record.level,
      created_time: record.createdTime,
      created_at: record.createdAt,
      text: record.text,
      turn_id: record.turnId,
      char_start: record.charRange[0],
      char_end: record.charRange[1],
      parent_ids: JSON.stringify(record.parentIds),
      key_findings: JSON.stringify(record.keyFindings),
      tools_used: JSON.stringify(record.toolsUsed),
      topics: JSON.stringify(record.topics),
      author: record.author,
      embedding: record.embedding ? encodeVector(record.embedding) : null,
      embedding_model: record.embedding ? record.embeddingModel : null,
      stale: record.stale ? 1 : 0,
      stale_time: record.staleTime,
    });
    if (inserted.changes === 0) return false;
    for (const mention of record.mentions) {
      this.statements.insertMention.run(
        record.memoryId,
        record.workspace,
        record.graphKey,
        mention.key,
        mention.fingerprint,
      );
    }
    if (record.level > 0) {
      this.statements.advanceCursor.run({
        thread_id: record.threadId,
        workspace: record.workspace,
        level1_end: record.level === 1 ? record.charRange[1] : 0,
        level2_end: record.level === 2 ? record.charRange[1] : 0,
      });
    }
    return true;
  }
}

function prepare(db: Database) {
  const statement = (sql: string): Statement => db.prepare(sql);
  const filters = `m.workspace = @workspace AND m.thread_id = @thread_id
        AND (@level IS NULL OR m.level = @level)
        AND (@since IS NULL OR m.created_time >= @since)
        AND (@until IS NULL OR m.created_time <= @until)
        AND (@model IS NULL OR m.embedding IS NULL OR m.embedding_model != @model)
        AND (@ids IS NULL OR m.memory_id IN (SELECT value FROM json_each(@ids)))`;
  // Every column but the vector (a few KB per record, the bulk of a read).
  const withoutVector = `m.memory_id, m.workspace, m.thread_id, m.graph_key, m.level, m.created_time, m.created_at, m.text, m.turn_id,
    m.char_start, m.char_end, m.parent_ids, m.key_findings, m.tools_used, m.topics, m.author, NULL AS embedding, m.embedding_model,
    m.stale, m.stale_time`;
  const order = 'ORDER BY m.created_time, m.char_start, m.level, m.memory_id';
  return {
    insert:
      statement(`INSERT INTO ai_memory (memory_id, workspace, thread_id, graph_key, level, created_time, created_at, text, turn_id,
        char_start, char_end, parent_ids, key_findings, tools_used, topics, author, embedding, embedding_model, stale, stale_time)
      VALUES (@memory_id, @workspace, @thread_id, @graph_key, @level, @created_time, @created_at, @text, @turn_id,
        @char_start, @char_end, @parent_ids, @key_findings, @tools_used, @topics, @author, @embedding, @embedding_model, @stale, @stale_time)
      ON CONFLICT (memory_id) DO NOTHING`),
    insertMention:
      statement(`INSERT OR IGNORE INTO ai_memory_mentions (memory_id, workspace, graph_key, node_key, fingerprint)
      VALUES (?, ?, ?, ?, ?)`),
    advanceCursor: statement(`INSERT INTO ai_memory_cursors (thread_id, workspace, level1_end, level2_end)
      VALUES (@thread_id, @workspace, @level1_end, @level2_end)
      ON CONFLICT (thread_id) DO UPDATE SET
        level1_end = MAX(level1_end, excluded.level1_end), level2_end = MAX(level2_end, excluded.level2_end)`),
    setEmbedding: statement(
      'UPDATE ai_memory SET embedding = ?, embedding_model = ? WHERE memory_id = ? AND workspace = ?',
    ),
    list: statement(`SELECT m.* FROM ai_memory m WHERE ${filters} ${order}`),
    listWithoutVectors: statement(`SELECT ${withoutVector} FROM ai_memory m WHERE ${filters} ${order}`),
    threadMentions:
      statement(`SELECT n.memory_id, n.node_key, n.fingerprint FROM ai_memory_mentions n JOIN ai_memory m ON m.memory_id = n.memory_id
      WHERE ${filters} ORDER BY n.memory_id, n.node_key`),
    vectors: statement(`SELECT m.memory_id, m.level, m.embedding FROM ai_memory m
      WHERE m.workspace = ? AND m.thread_id = ? AND m.embedding_model = ? AND m.embedding IS NOT NULL ${order}`),
    cursor: statement('SELECT level1_end, level2_end FROM ai_memory_cursors WHERE thread_id = ? AND workspace = ?'),
    allMentions:
      statement(`SELECT DISTINCT n.node_key, n.fingerprint FROM ai_memory_mentions n JOIN ai_memory m ON m.memory_id = n.memory_id
      WHERE n.workspace = ? AND n.graph_key = ? AND m.stale = 0`),
    mentionsOf:
      statement(`SELECT DISTINCT n.node_key, n.fingerprint FROM ai_memory_mentions n JOIN ai_memory m ON m.memory_id = n.memory_id
      WHERE n.workspace = ? AND n.graph_key = ? AND n.node_key IN (SELECT value FROM json_each(?)) AND m.stale = 0`),
    staleCandidates:
      statement(`SELECT memory_id FROM ai_memory WHERE stale = 0 AND memory_id IN (SELECT memory_id FROM ai_memory_mentions
        WHERE workspace = @workspace AND graph_key = @graph_key AND node_key = @node_key AND fingerprint = @fingerprint)`),
    threadsOf: statement(
      'SELECT DISTINCT thread_id FROM ai_memory WHERE workspace = ? AND memory_id IN (SELECT value FROM json_each(?))',
    ),
    // Level 1 before level 2: a level-2 summary is marked when one of its level-1 sources is.
    summariesOf: statement(`SELECT memory_id, parent_ids FROM ai_memory
      WHERE workspace = ? AND thread_id = ? AND level > 0 ORDER BY level`),
    markRecordsStale: statement(`UPDATE ai_memory SET stale = 1, stale_time = @now
      WHERE stale = 0 AND workspace = @workspace AND memory_id IN (SELECT value FROM json_each(@ids))`),
    threadExists: statement('SELECT 1 FROM ai_threads WHERE thread_id = ? AND workspace = ?'),
    deleteThreadMentions: statement(`DELETE FROM ai_memory_mentions WHERE memory_id IN
      (SELECT memory_id FROM ai_memory WHERE thread_id = ? AND workspace = ?)`),
    deleteCursor: statement('DELETE FROM ai_memory_cursors WHERE thread_id = ? AND workspace = ?'),
    deleteThreadRecords: statement('DELETE FROM ai_memory WHERE thread_id = ? AND workspace = ?'),
    trimMentions: statement(`DELETE FROM ai_memory_mentions WHERE memory_id IN
      (SELECT memory_id FROM ai_memory WHERE level = ? AND created_time < ?)`),
    trimRecords: statement('DELETE FROM ai_memory WHERE level = ? AND created_time < ?'),
    // What a level-2 summary covers: within the thread's level-2 cursor.
    trimCoveredMentions: statement(`DELETE FROM ai_memory_mentions WHERE memory_id IN
      (SELECT m.memory_id FROM ai_memory m JOIN ai_memory_cursors c ON c.thread_id = m.thread_id
        WHERE m.level = ? AND m.created_time < ? AND m.char_end <= c.level2_end)`),
    trimCoveredRecords: statement(`DELETE FROM ai_memory WHERE level = ? AND created_time < ?
      AND char_end <= (SELECT c.level2_end FROM ai_memory_cursors c WHERE c.thread_id = ai_memory.thread_id)`),
  };
}

/** `mentions` sorted by key (the query's order). */
function toRecord(row: MemoryRow, mentions: NodeMention[]): MemoryRecord {
  return {
    memoryId: row.memory_id,
    workspace: row.workspace,
    threadId: row.thread_id,
    graphKey: row.graph_key,
    level: row.level,
    createdTime: row.created_time,
    createdAt: row.created_at,
    text: row.text,
    turnId: row.turn_id,
    charRange: [row.char_start, row.char_end],
    parentIds: JSON.parse(row.parent_ids) as string[],
    mentions,
    keyFindings: JSON.parse(row.key_findings) as string[],
    toolsUsed: JSON.parse(row.tools_used) as string[],
    topics: JSON.parse(row.topics) as string[],
    author: row.author,
    embedding: row.embedding ? decodeVector(row.embedding) : null,
    embeddingModel: row.embedding ? row.embedding_model : null,
    stale: row.stale === 1,
    staleTime: row.stale_time,
  };
}

import type { Principal } from '../auth/principal';
import type { EmbeddingProvider } from '../embeddings/embedding-provider';
import { AppError } from '../errors/app-error';
import type { GraphDataSourceFactory } from '../graph/graph-data-source.factory';
import type { TokenTracker } from '../providers/token.tracker';
import type { ThreadService } from '../threads/thread.service';
import type { ThreadRecord } from '../threads/thread.types';
import { formatLocalDate } from './local-date.format';
import { summaryMemoryId } from './memory-id';
import type { GraphChangeWatch } from './staleness/graph-change.watch';
import { MemoryCursor, MemoryRecord, NodeMention } from './memory-record';
import type { MemoryRepository } from './memory.repository';
import { nodeContentFingerprint } from './node-content.fingerprint';
import { checkNodeMentions, keyCandidatesIn, stringsInJson } from './node-mention.checker';
import { planSummaryBatches } from './summary-batch.planner';
import type { ConversationSummarizer, SummaryResult, SummarySource } from './summaries/conversation-summary';
import { splitConversationTurns } from './turns/conversation-turn.splitter';
import { MeasuredTurn, measureClosedTurns } from './turns/measured-turn';
import { buildTurnMemoryText } from './turns/turn-memory-text.builder';

export interface ThreadMemoryWriterOptions {
  level1EveryChars: number;
  level2EveryChars: number;
  clock?: () => number;
}

export interface ThreadMemoryWriterDependencies {
  repository: MemoryRepository;
  threads: ThreadService;
  graphs: GraphDataSourceFactory;
  /** Null when embeddings are off: records are written without vectors and recall finds nothing. */
  embeddings: EmbeddingProvider | null;
  summarizer: ConversationSummarizer;
  tokenTracker: TokenTracker;
  /** Whether a graph changed while a record was written; absent: every record's nodes are read again. */
  changes?: GraphChangeWatch;
}

/**
 * What recordTurns read and wrote, handed to the thread's next update (MemoryUpdateQueue) so that it does not
 * read them back: the thread, its closed turns, its memory cursor, and the turn records written.
 */
export interface RecordedTurns {
  thread: ThreadRecord;
  turns: readonly MeasuredTurn[];
  cursor: MemoryCursor;
  written: MemoryRecord[];
}

/** What one update wrote. */
export interface MemoryUpdateReport {
  turns: number;
  summaries: { 1: number; 2: number };
  embedded: number;
  /** Upstream summary calls made (0 with the extractive summarizer). */
  summaryCalls: number;
}

/**
 * Brings a thread's memory up to date with its stored messages. Everything it writes is
 * derived from what is stored, so an update that fails, or never ran (the process stopped), is
 * simply done by the next one: nothing is lost, and nothing is written twice (record ids are derived
 * from what they cover).
 *  1. a level-0 record for each closed turn that has none (its text, and the graph nodes it mentions,
 *     each with the fingerprint of its content: recordTurns writes them as the run ends, so the
 *     fingerprints are the nodes as the turn saw them; `update` writes those still missing);
 *  2. a level-1 summary for each run of turns past the thread's level-1 cursor holding at least
 *     MEMORY_L1_EVERY_CHARS characters; a level-2 summary for each run of level-1 summaries past the
 *     level-2 cursor holding at least MEMORY_L2_EVERY_CHARS characters of text;
 *  3. the embedding of the new turns at once, then of every other record without one (the new
 *     summaries, a record an earlier update failed to embed, one embedded with another model).
 * A summary call's usage is added to the thread's usage and to the budgets (TokenTracker); a spent
 * budget stops the update before the call (retried later like any failure).
 *
 * Staleness: a record's mentions are checked against the graph again right after it is stored (a node
 * changed between the read and the write would otherwise never be seen: the change's own check ran
 * before the record existed); a turn's only when the graph may have changed since its nodes were read
 * (GraphChangeWatch). A summary is stale when one of its sources is, and a mention it shares
 * with its sources keeps the sources' fingerprint (the content the conversation was about). A thread
 * deleted meanwhile stops the update (the repository refuses its records).
 */
export class ThreadMemoryWriter {
  private readonly clock: () => number;

  constructor(
    private readonly deps: ThreadMemoryWriterDependencies,
    private readonly options: ThreadMemoryWriterOptions,
  ) {
    this.clock = options.clock ?? Date.now;
  }

  /**
   * Updates the principal's thread; a thread that no longer exists (or whose memory was deleted) has nothing to
   * update. `recorded`: what recordTurns read and wrote right before (the thread's state as of then, its new turn
   * records to embed), instead of reading it all back; when it failed or found nothing, the update reads.
   */
  async update(
    principal: Principal,
    threadId: string,
    signal?: AbortSignal,
    recorded?: Promise<RecordedTurns | null>,
  ): Promise<MemoryUpdateReport> {
    const report: MemoryUpdateReport = { turns: 0, summaries: { 1: 0, 2: 0 }, embedded: 0, summaryCalls: 0 };
    try {
      const handed = recorded ? await recorded.catch(() => null) : null;
      await this.updateThread(principal, threadId, report, signal, handed);
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return report;
      throw error;
    }
    return report;
  }

  /**
   * Writes the level-0 records of the thread's closed turns that have none (no embedding, no summary: those
   * are the update's), right after its run: the fingerprints of their mentions are the nodes as the turn saw
   * them. Returns the records written; a thread that no longer exists has none.
   */
  async recordTurns(principal: Principal, threadId: string): Promise<MemoryRecord[]> {
    return (await this.recordTurnsFor(principal, threadId))?.written ?? [];
  }

  /** recordTurns, answering what it read too (for the thread's next update); null when the thread no longer exists. */
  async recordTurnsFor(principal: Principal, threadId: string): Promise<RecordedTurns | null> {
    try {
      const thread = await this.deps.threads.load(principal, threadId);
      const turns = measureClosedTurns(threadId, splitConversationTurns(thread.messages));
      const cursor = await this.deps.repository.cursor(thread.workspace, threadId);
      return { thread, turns, cursor, written: await this.writeTurns(thread, turns, cursor.level1End) };
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return null;
      throw error;
    }
  }

  private async updateThread(
    principal: Principal,
    threadId: string,
    report: MemoryUpdateReport,
    signal: AbortSignal | undefined,
    recorded: RecordedTurns | null,
  ): Promise<void> {
    let thread: ThreadRecord;
    let turns: readonly MeasuredTurn[];
    let cursor: MemoryCursor;
    let written: MemoryRecord[];
    if (recorded) {
      ({ thread, turns, cursor, written } = recorded);
    } else {
      thread = await this.deps.threads.load(principal, threadId);
      turns = measureClosedTurns(threadId, splitConversationTurns(thread.messages));
      cursor = await this.deps.repository.cursor(thread.workspace, threadId);
      written = await this.writeTurns(thread, turns, cursor.level1End, signal);
      report.turns = written.length;
    }
    // The new turns are recallable at once, before the summaries' slower calls.
    await this.embed(thread, written, report, signal);

    for (const batch of planSummaryBatches(
      turns.map((turn) => ({ ...turn, size: turn.charRange[1] - turn.charRange[0] })),
      cursor.level1End,
      this.options.level1EveryChars,
    )) {
      const sources = await this.deps.repository.list(thread.workspace, threadId, {
        memoryIds: batch.map((turn) => turn.memoryId),
        vectors: false,
      });
      await this.summarize(thread, 1, batch.map(turnSource), sources, batch, report, signal);
    }

    const level1 = (await this.deps.repository.list(thread.workspace, threadId, { level: 1, vectors: false }))
      .map((record) => ({ ...record, size: record.text.length }))
      .sort((a, b) => a.charRange[0] - b.charRange[0]);
    for (const batch of planSummaryBatches(level1, cursor.level2End, this.options.level2EveryChars)) {
      await this.summarize(thread, 2, batch.map(summarySource), batch, batch, report, signal);
    }
    // Summaries just written, and anything an earlier update could not embed (or embedded with another model).
    const model = this.deps.embeddings?.modelName;
    if (model) {
      const embedded = new Set(written.map((record) => record.memoryId));
      const missing = await this.deps.repository.list(thread.workspace, threadId, {
        needingEmbeddingBy: model,
        vectors: false,
      });
      await this.embed(
        thread,
        missing.filter((record) => !embedded.has(record.memoryId)),
        report,
        signal,
      );
    }
  }

  /** The level-0 records of the turns past `level1End` that have none, written and checked for staleness. */
  private async writeTurns(
    thread: ThreadRecord,
    turns: readonly MeasuredTurn[],
    level1End: number,
    signal?: AbortSignal,
  ): Promise<MemoryRecord[]> {
    // Turns a level-1 summary covers were stored before it was written (and turns are never removed
    // before their thread): only the later ones are looked up.
    const recent = turns.filter((turn) => turn.charRange[1] > level1End);
    if (recent.length === 0) return [];
    const stored = await this.deps.repository.list(thread.workspace, thread.threadId, {
      memoryIds: recent.map((turn) => turn.memoryId),
      vectors: false,
    });
    const storedIds = new Set(stored.map((record) => record.memoryId));
    const written: MemoryRecord[] = [];
    for (const turn of recent) {
      if (storedIds.has(turn.memoryId)) continue;
      signal?.throwIfAborted();
      const mark = this.changesMark(thread);
      const record = await this.turnRecord(thread, turn);
      if (!(await this.deps.repository.insert(record))) continue;
      written.push(record);
      await this.checkMentionsAgain(thread, record, mark);
    }
    return written;
  }

  /** The graph's change count before a record's nodes are read (GraphChangeWatch); null: no watch. */
  private changesMark(thread: ThreadRecord): number | null {
    return this.deps.changes?.mark(thread.workspace, thread.graphKey) ?? null;
  }

  /**
   * A node changed between the read of its fingerprint and the record's write: its own check missed the record.
   * Skipped when the graph's change count did not move since `mark` (any change is then checked after the write);
   * `mark` null: never skipped.
   */
  private async checkMentionsAgain(thread: ThreadRecord, record: MemoryRecord, mark: number | null): Promise<void> {
    if (record.mentions.length === 0) return;
    const { changes } = this.deps;
    if (changes && mark !== null && !changes.changedSince(thread.workspace, thread.graphKey, mark)) return;
    const nodes = await this.deps.graphs
      .forWorkspace(thread.workspace)
      .getNodesByKeys(thread.graphKey, [...new Set(record.mentions.map((mention) => mention.key))]);
    const current = new Map(nodes.map((node) => [node._key, nodeContentFingerprint(node)]));
    const outdated = record.mentions.filter((mention) => current.get(mention.key) !== mention.fingerprint);
    if (outdated.length > 0)
      await this.deps.repository.markStale(thread.workspace, thread.graphKey, outdated, this.clock());
  }

  private async turnRecord(thread: ThreadRecord, measured: MeasuredTurn): Promise<MemoryRecord> {
    const { turn } = measured;
    const candidates = [
      ...turn.tools.flatMap((tool) => stringsInJson(tool.arguments)),
      ...keyCandidatesIn([turn.userMessage, ...turn.assistantTexts].join('\n')),
    ];
    return this.newRecord(thread, {
      level: 0,
      createdTime: turn.createdTime,
      text: buildTurnMemoryText(turn),
      turnId: turn.turnId,
      memoryId: measured.memoryId,
      charRange: measured.charRange,
      parentIds: [],
      mentions: await checkNodeMentions(this.deps.graphs.forWorkspace(thread.workspace), thread.graphKey, candidates),
      keyFindings: [],
      toolsUsed: [...new Set(turn.tools.map((tool) => tool.name))],
      topics: [],
      author: null,
    });
  }

  /**
   * One summary of `parents` (the stored records it covers: level 0 for level 1, level 1 for level 2). It
   * is stale when one of them is; a node it mentions that they mention keeps their fingerprint (the latest
   * one: an older one that differs has made its record stale already).
   */
  private async summarize(
    thread: ThreadRecord,
    level: 1 | 2,
    sources: SummarySource[],
    parents: readonly MemoryRecord[],
    covered: ReadonlyArray<{ memoryId: string; charRange: readonly [number, number] }>,
    report: MemoryUpdateReport,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    signal?.throwIfAborted();
    this.deps.tokenTracker.assertWithinBudget();
    const result = await this.deps.summarizer.summarize({ workspace: thread.workspace, level, sources, signal });
    await this.recordUsage(thread, result);
    if (result.usage) report.summaryCalls += 1;
    const charRange: [number, number] = [covered[0].charRange[0], covered[covered.length - 1].charRange[1]];
    const parentIds = covered.map((record) => record.memoryId);
    const inherited = new Map<string, string>();
    for (const parent of [...parents].sort((a, b) => a.charRange[0] - b.charRange[0]))
      for (const mention of parent.mentions) inherited.set(mention.key, mention.fingerprint);
    const staleParents = parents.filter((parent) => parent.stale);
    const record = this.newRecord(thread, {
      level,
      createdTime: this.clock(),
      text: result.summary.summary,
      turnId: null,
      memoryId: summaryMemoryId(level, thread.threadId, charRange),
      charRange,
      parentIds,
      mentions: (
        await checkNodeMentions(
          this.deps.graphs.forWorkspace(thread.workspace),
          thread.graphKey,
          result.summary.nodesMentioned,
        )
      ).map((mention) => ({ key: mention.key, fingerprint: inherited.get(mention.key) ?? mention.fingerprint })),
      keyFindings: result.summary.keyFindings,
      toolsUsed: result.summary.toolsUsed,
      topics: result.summary.topics,
      author: result.author,
      stale: staleParents.length > 0,
      staleTime:
        staleParents.length > 0 ? Math.min(...staleParents.map((parent) => parent.staleTime ?? this.clock())) : null,
    });
    if (!(await this.deps.repository.insert(record))) return;
    report.summaries[level] += 1;
    // Always: its inherited fingerprints are as old as its sources.
    await this.checkMentionsAgain(thread, record, null);
    // A source marked stale after it was read above: its mark did not reach this summary, not stored yet.
    if (!record.stale) {
      const now = await this.deps.repository.list(thread.workspace, thread.threadId, {
        memoryIds: parentIds,
        vectors: false,
      });
      if (now.some((parent) => parent.stale))
        await this.deps.repository.markRecordsStale(thread.workspace, [record.memoryId], this.clock());
    }
  }

  /** The call's tokens and cost go to the thread's usage and to the process-wide budgets, like the agent's own calls. */
  private async recordUsage(thread: ThreadRecord, result: SummaryResult): Promise<void> {
    if (!result.usage) return;
    const entry = this.deps.tokenTracker.record(result.usage, {
      provider: result.provider,
      model: result.model,
      threadId: thread.threadId,
      workspace: thread.workspace,
    });
    await this.deps.threads.addUsage(thread.workspace, thread.threadId, {
      promptTokens: entry.promptTokens,
      completionTokens: entry.completionTokens,
      cachedTokens: entry.cachedTokens,
      totalTokens: entry.totalTokens,
      costUsd: entry.costUsd,
      llmCalls: 1,
    });
  }

  private async embed(
    thread: ThreadRecord,
    records: readonly MemoryRecord[],
    report: MemoryUpdateReport,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const provider = this.deps.embeddings;
    if (!provider || records.length === 0) return;
    const vectors = await provider.embed(records.map(embeddingTextOf), signal);
    for (let index = 0; index < records.length; index += 1) {
      await this.deps.repository.setEmbedding(
        thread.workspace,
        records[index].memoryId,
        vectors[index],
        provider.modelName,
      );
    }
    report.embedded += records.length;
  }

  private newRecord(
    thread: ThreadRecord,
    fields: Pick<
      MemoryRecord,
      | 'level'
      | 'createdTime'
      | 'text'
      | 'turnId'
      | 'memoryId'
      | 'charRange'
      | 'parentIds'
      | 'keyFindings'
      | 'toolsUsed'
      | 'topics'
      | 'author'
    > & {
      mentions: NodeMention[];
      stale?: boolean;
      staleTime?: number | null;
    },
  ): MemoryRecord {
    return {
      ...fields,
      workspace: thread.workspace,
      threadId: thread.threadId,
      graphKey: thread.graphKey,
      createdAt: formatLocalDate(new Date(fields.createdTime)),
      embedding: null,
      embeddingModel: null,
      stale: fields.stale ?? false,
      staleTime: fields.staleTime ?? null,
    };
  }
}

function turnSource(turn: MeasuredTurn): SummarySource {
  return {
    text: buildTurnMemoryText(turn.turn),
    toolsUsed: [...new Set(turn.turn.tools.map((tool) => tool.name))],
    nodesMentioned: [],
    keyFindings: [],
  };
}

function summarySource(record: MemoryRecord): SummarySource {
  return {
    text: record.text,
    toolsUsed: record.toolsUsed,
    nodesMentioned: record.mentions.map((mention) => mention.key),
    keyFindings: record.keyFindings,
  };
}

/**
 * What a record's vector is computed from: a turn's text as is; a summary's text followed
 * by the nodes it mentions and its findings, which recall should match too.
 */
export function embeddingTextOf(record: Pick<MemoryRecord, 'level' | 'text' | 'mentions' | 'keyFindings'>): string {
  if (record.level === 0) return record.text;
  const parts = [record.text];
  if (record.mentions.length > 0) parts.push(`Nodes: ${record.mentions.map((mention) => mention.key).join(', ')}`);
  if (record.keyFindings.length > 0) parts.push(`Findings: ${record.keyFindings.join('; ')}`);
  return parts.join('\n\n');
}

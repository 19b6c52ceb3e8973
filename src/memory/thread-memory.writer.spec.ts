import { exchangeMessages, MemoryTestbed, ScriptedExchange } from '../../test/support/memory-testbed';
import { ScriptedLlmServer } from '../../test/support/scripted-llm-server';
import { ProviderRegistry } from '../config/provider-registry';
import { createLlmProvider } from '../providers/llm-provider.factory';
import { selectLlmProvider } from '../providers/llm-provider.selector';
import { TokenLimitError } from '../providers/token-limit.error';
import { ConversationSummarizer, SummaryRequest } from './summaries/conversation-summary';
import { ExtractiveConversationSummarizer } from './summaries/extractive-conversation.summarizer';
import { LlmConversationSummarizer } from './summaries/llm-conversation.summarizer';
import { ThreadMemoryWriter } from './thread-memory.writer';

/** ~420 characters of turn text each. */
const exchange = (index: number): ScriptedExchange => ({
  user: `Question ${index}: what does fetch-api do with the players of season ${2000 + index}? ${'Please be thorough. '.repeat(5)}`,
  answer: `Answer ${index}: fetch-api calls the NBA endpoint and filter-active keeps the active players. ${'It is fine. '.repeat(10)}`,
});

/** Counts the summaries asked for, and writes them with the extractive summarizer. */
class CountingSummarizer implements ConversationSummarizer {
  readonly requests: SummaryRequest[] = [];
  private readonly inner = new ExtractiveConversationSummarizer();
  summarize(request: SummaryRequest) {
    this.requests.push(request);
    return this.inner.summarize(request);
  }
}

describe(ThreadMemoryWriter.name, () => {
  let bed: MemoryTestbed;
  afterEach(async () => bed.close());

  it('records each closed turn once, with its text, range, tools and the graph nodes it really mentions, embedded with the model named', async () => {
    bed = await MemoryTestbed.create();
    let thread = await bed.conversation([
      {
        user: 'Is made-up-node connected to filter-active?',
        answer: 'There is no made-up-node; filter-active follows fetch-api.',
        tools: [{ name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' }, result: '{"key":"fetch-api"}' }],
      },
      { user: 'And root?', answer: 'Root starts the flow.' },
    ]);
    thread = await bed.threads.commit(thread, {
      append: exchangeMessages({ user: 'Still open', answer: '' }).slice(0, 1),
    });

    const report = await bed.writer.update(bed.principal, thread.threadId);
    expect(report).toMatchObject({ turns: 2, summaries: { 1: 0, 2: 0 }, embedded: 2, summaryCalls: 0 });
    const [first, second] = await bed.repository.list('default', thread.threadId);
    expect(first).toMatchObject({
      level: 0,
      graphKey: 'nba-workflow',
      toolsUsed: ['read_node_detail'],
      parentIds: [],
      author: null,
      embeddingModel: 'local-hash-v1-512',
      stale: false,
    });
    expect(first.text).toBe(
      'User: Is made-up-node connected to filter-active?\nAssistant: There is no made-up-node; filter-active follows fetch-api.\nTools used:\n- read_node_detail: {"key":"fetch-api"}',
    );
    expect(first.mentions.map((mention) => mention.key)).toEqual(['fetch-api', 'filter-active']);
    expect(first.charRange).toEqual([0, first.text.length]);
    expect(second.charRange).toEqual([first.text.length, first.text.length + second.text.length]);
    expect(second.mentions.map((mention) => mention.key)).toEqual(['root']);
    expect(first.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
    expect(first.embedding).toHaveLength(512);
  });

  it('summarizes every N characters of turns (level 1) and every M characters of level-1 summaries (level 2), each once', async () => {
    const summarizer = new CountingSummarizer();
    bed = await MemoryTestbed.create({
      env: { MEMORY_L1_EVERY_CHARS: '1000', MEMORY_L2_EVERY_CHARS: '1000' },
      summarizer,
    });
    const thread = await bed.conversation(Array.from({ length: 12 }, (_, index) => exchange(index + 1)));

    const report = await bed.writer.update(bed.principal, thread.threadId);
    const records = await bed.repository.list('default', thread.threadId);
    const turns = records.filter((record) => record.level === 0).sort((a, b) => a.charRange[0] - b.charRange[0]);
    const level1 = records.filter((record) => record.level === 1).sort((a, b) => a.charRange[0] - b.charRange[0]);
    const level2 = records.filter((record) => record.level === 2);
    expect(turns).toHaveLength(12);
    expect(level1.length).toBe(report.summaries[1]);
    expect(level1.length).toBeGreaterThanOrEqual(3);
    // Each level-1 summary covers consecutive whole turns, from where the previous one stopped.
    let next = 0;
    for (const summary of level1) {
      const covered = turns.filter((turn) => summary.parentIds.includes(turn.memoryId));
      expect(covered.map((turn) => turn.memoryId)).toEqual(summary.parentIds);
      expect(summary.charRange).toEqual([next, covered[covered.length - 1].charRange[1]]);
      expect(covered.reduce((sum, turn) => sum + turn.text.length, 0)).toBeGreaterThanOrEqual(1000);
      expect(summary.text.startsWith('Extractive summary (no language model is configured')).toBe(true);
      expect(summary.author).toBe('extractive');
      expect(summary.mentions.map((mention) => mention.key)).toEqual(['fetch-api', 'filter-active']);
      expect(summary.embeddingModel).toBe('local-hash-v1-512');
      next = summary.charRange[1];
    }
    expect(level2.length).toBeGreaterThanOrEqual(1);
    expect(level2[0].parentIds).toEqual(level1.slice(0, level2[0].parentIds.length).map((summary) => summary.memoryId));
    expect(await bed.repository.cursor('default', thread.threadId)).toEqual({
      level1End: next,
      level2End: level2[level2.length - 1].charRange[1],
    });

    const asked = summarizer.requests.length;
    expect(await bed.writer.update(bed.principal, thread.threadId)).toEqual({
      turns: 0,
      summaries: { 1: 0, 2: 0 },
      embedded: 0,
      summaryCalls: 0,
    });
    expect(summarizer.requests).toHaveLength(asked);
  });

  it('keeps through retention the level-1 summaries no level-2 summary covers yet, summarizes them at level 2 later, and never again once trimmed', async () => {
    const summarizer = new CountingSummarizer();
    bed = await MemoryTestbed.create({
      env: { MEMORY_L1_EVERY_CHARS: '1000', MEMORY_L2_EVERY_CHARS: '100000' },
      summarizer,
    });
    const thread = await bed.conversation(Array.from({ length: 6 }, (_, index) => exchange(index + 1)));
    await bed.writer.update(bed.principal, thread.threadId);
    const level1 = await bed.repository.list('default', thread.threadId, { level: 1 });
    expect(level1.length).toBeGreaterThan(0);

    // Old enough for retention, but no level-2 summary covers them: they are what the next one is made of.
    expect(await bed.repository.trim(1, Date.now() + 1000)).toBe(0);
    expect(await bed.repository.list('default', thread.threadId, { level: 1 })).toHaveLength(level1.length);

    const longTerm = new ThreadMemoryWriter(
      {
        repository: bed.repository,
        threads: bed.threads,
        graphs: bed.graphs,
        embeddings: bed.embeddings,
        summarizer,
        tokenTracker: bed.tokenTracker,
      },
      { level1EveryChars: 1000, level2EveryChars: 100 },
    );
    expect((await longTerm.update(bed.principal, thread.threadId)).summaries[2]).toBeGreaterThan(0);
    const { level2End } = await bed.repository.cursor('default', thread.threadId);
    const covered = level1.filter((record) => record.charRange[1] <= level2End);
    expect(covered.length).toBeGreaterThan(0);

    expect(await bed.repository.trim(1, Date.now() + 1000)).toBe(covered.length);
    const asked = summarizer.requests.length;
    await longTerm.update(bed.principal, thread.threadId);
    expect(summarizer.requests).toHaveLength(asked);
    expect(
      (await bed.repository.list('default', thread.threadId, { level: 1 })).map((record) => record.memoryId),
    ).toEqual(level1.filter((record) => record.charRange[1] > level2End).map((record) => record.memoryId));
  });

  it('writes a summary stale when one of its sources is, and carries a later mark up to it', async () => {
    bed = await MemoryTestbed.create({ env: { MEMORY_L1_EVERY_CHARS: '1000', MEMORY_L2_EVERY_CHARS: '1000' } });
    const thread = await bed.conversation(Array.from({ length: 12 }, (_, index) => exchange(index + 1)));
    const turns = await bed.writer.recordTurns(bed.principal, thread.threadId);
    expect(turns).toHaveLength(12);
    await bed.repository.markRecordsStale('default', [turns[0].memoryId], 1_234);

    await bed.writer.update(bed.principal, thread.threadId);
    const records = await bed.repository.list('default', thread.threadId);
    const first1 = records.find((record) => record.level === 1 && record.parentIds.includes(turns[0].memoryId))!;
    const first2 = records.find((record) => record.level === 2 && record.parentIds.includes(first1.memoryId))!;
    expect([first1.stale, first1.staleTime, first2.stale, first2.staleTime]).toEqual([true, 1_234, true, 1_234]);
    const others = records.filter((record) => record.level > 0 && ![first1, first2].includes(record));
    expect(others.length).toBeGreaterThan(0);
    expect(others.every((record) => !record.stale)).toBe(true);

    // A turn marked later: the level-1 summary above it and the level-2 summary above that follow.
    const last1 = others.filter((record) => record.level === 1).at(-1)!;
    await bed.repository.markRecordsStale('default', [last1.parentIds[0]], 5_678);
    const after = new Map(
      (await bed.repository.list('default', thread.threadId)).map((record) => [record.memoryId, record]),
    );
    expect(after.get(last1.memoryId)).toMatchObject({ stale: true, staleTime: 5_678 });
    for (const record of after.values())
      if (record.level === 2 && record.parentIds.includes(last1.memoryId)) expect(record.stale).toBe(true);
  });

  it('has nothing to do for a thread that was deleted', async () => {
    bed = await MemoryTestbed.create();
    const thread = await bed.conversation([exchange(1)]);
    await bed.threads.delete(bed.principal, thread.threadId);
    expect(await bed.writer.update(bed.principal, thread.threadId)).toEqual({
      turns: 0,
      summaries: { 1: 0, 2: 0 },
      embedded: 0,
      summaryCalls: 0,
    });
  });

  describe('with a model', () => {
    let server: ScriptedLlmServer;
    beforeEach(async () => {
      server = await ScriptedLlmServer.start();
    });
    afterEach(async () => server.close());

    async function bedWithModel(limits: Record<string, number> = {}) {
      const registry = ProviderRegistry.load();
      const env = { ...server.providerEnv('openai'), MEMORY_L1_EVERY_CHARS: '1000' };
      const probe = await MemoryTestbed.create({ env });
      const provider = createLlmProvider(selectLlmProvider(probe.config, registry), { locale: 'en', maxRetries: 0 });
      await probe.close();
      return MemoryTestbed.create({
        env,
        summarizer: new LlmConversationSummarizer(provider, 'en'),
        tracker: { pricingFor: (name) => registry.get(name)?.pricing ?? null, limits },
      });
    }

    it('makes one structured call per summary, drops invented node keys, and adds the usage to the thread and the budgets', async () => {
      bed = await bedWithModel();
      server.enqueue({
        toolCalls: [
          {
            name: 'record_summary',
            arguments: {
              summary: 'The user studied fetch-api; the favourite season is 2003.',
              nodesMentioned: ['fetch-api', 'invented-node'],
              keyFindings: ['favourite season: 2003'],
              toolsUsed: [],
              topics: ['nba api'],
            },
          },
        ],
        usage: { prompt: 900, completion: 60, cached: 0 },
      });
      const thread = await bed.conversation([exchange(1), exchange(2), exchange(3)]);
      const report = await bed.writer.update(bed.principal, thread.threadId);
      expect(report.summaryCalls).toBe(1);

      const request = server.requests.find((recorded) => recorded.endpoint === 'openai.chat');
      expect(request?.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual([
        'record_summary',
      ]);
      expect(request?.body.messages[1].content).toContain('--- Turn 1 ---\nUser: Question 1');
      const [summary] = await bed.repository.list('default', thread.threadId, { level: 1 });
      expect(summary).toMatchObject({
        author: 'llm',
        text: 'The user studied fetch-api; the favourite season is 2003.',
        keyFindings: ['favourite season: 2003'],
      });
      expect(summary.mentions.map((mention) => mention.key)).toEqual(['fetch-api']);
      const stored = await bed.threads.load(bed.principal, thread.threadId);
      expect(stored.usage).toMatchObject({ promptTokens: 900, completionTokens: 60, llmCalls: 1 });
      expect(stored.usage.costUsd).toBeGreaterThan(0);
      expect(bed.tokenTracker.totalsForThread(thread.threadId)).toMatchObject({ calls: 1, promptTokens: 900 });
    });

    it('stops before the call when the budget is spent, and writes the summary on a later update', async () => {
      bed = await bedWithModel({ maxTotalTokens: 1 });
      bed.tokenTracker.record(
        { promptTokens: 5, completionTokens: 0, cachedTokens: 0, totalTokens: 5 },
        { provider: 'openai', model: 'm' },
      );
      const thread = await bed.conversation([exchange(1), exchange(2), exchange(3)]);
      await expect(bed.writer.update(bed.principal, thread.threadId)).rejects.toBeInstanceOf(TokenLimitError);
      expect(server.requests.filter((recorded) => recorded.endpoint === 'openai.chat')).toHaveLength(0);
      expect(await bed.repository.list('default', thread.threadId, { level: 0 })).toHaveLength(3);
    });

    it('leaves the range unsummarized when the model answers something that is not a summary', async () => {
      bed = await bedWithModel();
      server.enqueue({ text: 'Sure! Here is a summary of the conversation.' });
      const thread = await bed.conversation([exchange(1), exchange(2), exchange(3)]);
      await expect(bed.writer.update(bed.principal, thread.threadId)).rejects.toThrow(
        /neither called record_summary nor answered JSON/,
      );
      expect(await bed.repository.cursor('default', thread.threadId)).toEqual({ level1End: 0, level2End: 0 });
      server.enqueue({
        text: '```json\n{"summary":"Recovered.","nodesMentioned":[],"keyFindings":[],"toolsUsed":[],"topics":[]}\n```',
      });
      expect((await bed.writer.update(bed.principal, thread.threadId)).summaries[1]).toBe(1);
    });
  });
});

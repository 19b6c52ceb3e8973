import { MemoryTestbed, ScriptedExchange } from '../../../test/support/memory-testbed';
import { LlmMessage } from '../../conversation/llm-message';
import { MemoryContextBuilder } from '../../memory/memory-context.builder';
import { MemoryRecaller } from '../../memory/recall/memory.recaller';
import { approximateTokens, estimateTokens } from '../../providers/token-estimate';
import { generateMessageId } from '../../threads/sortable-id.generator';
import { ThreadMessage, ThreadRecord } from '../../threads/thread.types';
import { ContextAssembler } from './context.assembler';

const LEVELS = {
  instructions: 'You are an AI assistant specialised in Nodius workflows. '.repeat(20),
  workspace: 'Custom types of this workspace:\n- api-call "API Call"',
  graphState: '# Graph\n- Key: nba-workflow\n- Size: 9 nodes, 8 edges',
};
const FACT: ScriptedExchange = {
  user: 'Before we go on: the staging API token for the NBA feed is called NBA_STAGING_TOKEN_42, please remember it.',
  answer: 'Noted: the staging token is NBA_STAGING_TOKEN_42.',
};
const filler = (index: number): ScriptedExchange => ({
  user: `Question ${index}: what does ${['fetch-api', 'root', 'filter-active', 'sort-stats'][index % 4]} do in step ${index}? ${'Please detail it. '.repeat(6)}`,
  answer: `Answer ${index}: it processes the players and passes the result to the next node on sheet main. ${'More details follow. '.repeat(12)}`,
});
const QUESTION = 'What was the name of the staging token I gave you at the beginning?';

describe(ContextAssembler.name, () => {
  let bed: MemoryTestbed;
  let assembler: ContextAssembler;
  const maxTokens = 3000;

  beforeEach(async () => {
    bed = await MemoryTestbed.create({ env: { MEMORY_L1_EVERY_CHARS: '1500', MEMORY_L2_EVERY_CHARS: '100000' } });
    const recaller = new MemoryRecaller(bed.repository, bed.embeddings, {
      minScore: undefined,
      limits: { 0: 3, 1: 5, 2: 3 },
      maxTokens: 400,
      countTokens: approximateTokens,
    });
    const memory = new MemoryContextBuilder(bed.repository, recaller, {
      enabled: true,
      recallMaxTokens: 400,
      summaryMaxTokens: 600,
      countTokens: approximateTokens,
      locale: 'en',
    });
    assembler = new ContextAssembler(memory, { maxTokens, countTokens: approximateTokens });
  });
  afterEach(async () => bed.close());

  /** The thread plus the current question with its retrieved context, committed as the agent commits them. */
  async function ask(
    thread: ThreadRecord,
    question: string,
  ): Promise<{ thread: ThreadRecord; context: ThreadMessage }> {
    const now = Date.now();
    const context: ThreadMessage = {
      id: generateMessageId(now),
      role: 'system',
      kind: 'rag_context',
      content: '[RAG context for this question]\nRELEVANT NODES: fetch-api',
      createdTime: now,
    };
    const next = await bed.threads.commit(thread, {
      append: [context, { id: generateMessageId(now), role: 'user', content: question, createdTime: now }],
    });
    return { thread: next, context };
  }

  it('sends the three stable levels first, each closed by a breakpoint, then the history, the question and the message’s own data', async () => {
    const { thread, context } = await ask(await bed.conversation([filler(1), filler(2)]), 'And root?');
    const assembled = await assembler.assemble({ levels: LEVELS, thread, currentContext: context });
    const roles = assembled.messages.map((message) => `${message.role}${message.cacheBreakpoint ? '*' : ''}`);
    expect(roles).toEqual([
      'system*',
      'system*',
      'system*',
      'user',
      'assistant',
      'user',
      'assistant*',
      'user',
      'system',
    ]);
    expect(assembled.messages.slice(0, 3).map((message) => message.content)).toEqual([
      LEVELS.instructions,
      LEVELS.workspace,
      LEVELS.graphState,
    ]);
    expect(assembled.messages.at(-1)?.content).toBe(context.content);
    expect(assembled.afterQuestion).toBe(8);
    expect(assembled.turnsLeftOut).toBe(0);
    expect(assembled.recalled).toEqual([]);
    expectNothingTwice(assembled.messages);
  });

  it('cuts a long history at a summary’s end, shows the summaries, recalls the fact asked about, stays in budget, and repeats nothing', async () => {
    const long = await bed.conversation([
      filler(1),
      filler(2),
      FACT,
      ...Array.from({ length: 30 }, (_, index) => filler(index + 3)),
    ]);
    await bed.writer.update(bed.principal, long.threadId);
    const { thread, context } = await ask(long, QUESTION);
    const assembled = await assembler.assemble({ levels: LEVELS, thread, currentContext: context });

    expect(assembled.turnsLeftOut).toBeGreaterThan(3);
    expect(estimateTokens(assembled.messages, approximateTokens)).toBeLessThanOrEqual(maxTokens);
    const summaries = assembled.messages[3];
    expect(summaries).toMatchObject({ role: 'system' });
    expect(summaries.content).toMatch(/^\[Conversation so far: summaries of the earlier turns/);
    const recall = assembled.messages.at(-2);
    expect(recall?.content).toMatch(/^\[Recalled from earlier in this conversation/);
    expect(recall?.content).toContain('NBA_STAGING_TOKEN_42');
    expect(assembled.messages.at(-3)?.content).toBe(QUESTION);
    expect(assembled.messages.at(-4)?.cacheBreakpoint).toBe(true); // end of the history, before the question
    expect(assembled.tokens.recalled).toBeGreaterThan(0);
    expectNothingTwice(assembled.messages);
  });

  it('keeps the prompt a byte-identical prefix of the next one while the cut does not move', async () => {
    const long = await bed.conversation(Array.from({ length: 24 }, (_, index) => filler(index + 1)));
    await bed.writer.update(bed.principal, long.threadId);
    const first = await ask(long, 'What does root do?');
    const a = await assembler.assemble({ levels: LEVELS, thread: first.thread, currentContext: first.context });
    const answered = await bed.threads.commit(first.thread, {
      append: [{ id: generateMessageId(), role: 'assistant', content: 'Root starts it.', createdTime: Date.now() }],
    });
    const second = await ask(answered, 'And return?');
    const b = await assembler.assemble({ levels: LEVELS, thread: second.thread, currentContext: second.context });
    expect(a.turnsLeftOut).toBeGreaterThan(0);
    expect(b.turnsLeftOut).toBe(a.turnsLeftOut);
    const stable = (assembled: typeof a) =>
      assembled.messages.slice(
        0,
        assembled.messages.findIndex((message) => message.cacheBreakpoint && message.role !== 'system') + 1,
      );
    const prefix = stable(a).map(({ cacheBreakpoint: _marker, ...message }) => message);
    expect(b.messages.slice(0, prefix.length).map(({ cacheBreakpoint: _marker, ...message }) => message)).toEqual(
      prefix,
    );
  });

  it('without memory, leaves the history to the plain pruning and the thread’s graph-less prompt to the stored one', async () => {
    const plain = new ContextAssembler(null, { maxTokens, countTokens: approximateTokens });
    const stored: ThreadMessage = {
      id: generateMessageId(),
      role: 'system',
      kind: 'system_prompt',
      content: 'STARTUP PROMPT',
      createdTime: Date.now(),
    };
    const created = await bed.threads.create(bed.principal, 'nba-workflow', 't');
    const withPrompt = await bed.threads.commit(created, { append: [stored] });
    const { thread, context } = await ask(await bed.append(withPrompt, [filler(1)]), 'Next?');
    const assembled = await plain.assemble({ levels: null, thread, currentContext: context });
    expect(assembled.messages[0]).toEqual({ role: 'system', content: 'STARTUP PROMPT', cacheBreakpoint: true });
    expect(assembled.messages.filter((message) => message.content === 'STARTUP PROMPT')).toHaveLength(1);
  });
});

/** No paragraph of the prompt appears in two of its messages. */
function expectNothingTwice(messages: LlmMessage[]): void {
  const seen = new Map<string, number>();
  messages.forEach((message, index) => {
    for (const paragraph of (message.content ?? '').split('\n\n').filter((text) => text.trim().length > 40)) {
      expect({ paragraph, first: seen.get(paragraph) ?? index }).toEqual({ paragraph, first: index });
      seen.set(paragraph, index);
    }
  });
}

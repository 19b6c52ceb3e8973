import { MemoryTestbed, ScriptedExchange } from '../../../test/support/memory-testbed';
import { approximateTokens } from '../../providers/token-estimate';
import { buildRecallBlock } from '../memory-context.blocks';
import { MemoryRecaller, MemoryRecallOptions } from './memory.recaller';
import { defaultRecallMinScore } from './recall-threshold';

const FACT: ScriptedExchange = {
  user: 'Before we go on: the staging API token for the NBA feed is called NBA_STAGING_TOKEN_42, please remember it.',
  answer: 'Noted: the staging token is NBA_STAGING_TOKEN_42.',
};
const filler = (index: number): ScriptedExchange => ({
  user: `What does ${['fetch-api', 'root', 'filter-active', 'sort-stats'][index % 4]} do in step ${index}?`,
  answer: 'It processes the players and passes the result to the next node on sheet main.',
  tools: [
    { name: 'read_node_detail', arguments: { nodeKey: 'fetch-api' }, result: '{"key":"fetch-api","type":"api-call"}' },
  ],
});
const QUESTION = 'What was the name of the staging token I gave you at the beginning?';

describe(MemoryRecaller.name, () => {
  let bed: MemoryTestbed;
  let threadId: string;
  const options = (overrides: Partial<MemoryRecallOptions> = {}): MemoryRecallOptions => ({
    minScore: undefined,
    limits: { 0: 3, 1: 5, 2: 3 },
    maxTokens: 1500,
    countTokens: approximateTokens,
    ...overrides,
  });

  beforeEach(async () => {
    bed = await MemoryTestbed.create({ env: { MEMORY_L1_EVERY_CHARS: '2000', MEMORY_L2_EVERY_CHARS: '100000' } });
    const thread = await bed.conversation([
      filler(1),
      filler(2),
      FACT,
      ...Array.from({ length: 20 }, (_, index) => filler(index + 3)),
    ]);
    threadId = thread.threadId;
    await bed.writer.update(bed.principal, threadId);
  });
  afterEach(async () => bed.close());

  it('finds the turn where a fact was stated, best first, above the threshold of the local embedding', async () => {
    const recalled = await new MemoryRecaller(bed.repository, bed.embeddings, options()).recall({
      workspace: 'default',
      threadId,
      query: QUESTION,
      exclude: new Set(),
    });
    expect(recalled.length).toBeGreaterThan(0);
    expect(recalled[0].record.text).toContain('NBA_STAGING_TOKEN_42');
    expect(recalled[0].score).toBeGreaterThan(defaultRecallMinScore(bed.embeddings!));
    for (let index = 1; index < recalled.length; index += 1)
      expect(recalled[index].score).toBeLessThanOrEqual(recalled[index - 1].score);
    expect(buildRecallBlock(recalled)).toContain('NBA_STAGING_TOKEN_42');
  });

  it('never recalls what the model already sees, and keeps to the per-level limits and the token budget', async () => {
    const recaller = (overrides: Partial<MemoryRecallOptions>) =>
      new MemoryRecaller(bed.repository, bed.embeddings, options({ minScore: 0, ...overrides }));
    const all = await recaller({}).recall({ workspace: 'default', threadId, query: QUESTION, exclude: new Set() });
    expect(all.filter((hit) => hit.record.level === 0)).toHaveLength(3);
    expect(all.filter((hit) => hit.record.level === 1).length).toBeLessThanOrEqual(5);
    const excluded = new Set(all.map((hit) => hit.record.memoryId));
    const rest = await recaller({}).recall({ workspace: 'default', threadId, query: QUESTION, exclude: excluded });
    expect(rest.some((hit) => excluded.has(hit.record.memoryId))).toBe(false);
    const small = await recaller({ maxTokens: 60, limits: { 0: 10, 1: 0, 2: 0 } }).recall({
      workspace: 'default',
      threadId,
      query: QUESTION,
      exclude: new Set(),
    });
    expect(small.reduce((sum, hit) => sum + approximateTokens(hit.record.text), 0)).toBeLessThanOrEqual(60);
    expect(small.every((hit) => hit.record.level === 0)).toBe(true);
  });

  it('recalls nothing without embeddings, or from records of another model, or for another workspace', async () => {
    expect(
      await new MemoryRecaller(bed.repository, null, options()).recall({
        workspace: 'default',
        threadId,
        query: QUESTION,
        exclude: new Set(),
      }),
    ).toEqual([]);
    const other = {
      ...bed.embeddings!,
      modelName: 'other-model',
      minSimilarity: 0.1,
      embedOne: bed.embeddings!.embedOne.bind(bed.embeddings),
      embed: bed.embeddings!.embed.bind(bed.embeddings),
      dimension: 512,
    };
    expect(
      await new MemoryRecaller(bed.repository, other, options()).recall({
        workspace: 'default',
        threadId,
        query: QUESTION,
        exclude: new Set(),
      }),
    ).toEqual([]);
    expect(
      await new MemoryRecaller(bed.repository, bed.embeddings, options()).recall({
        workspace: 'globex',
        threadId,
        query: QUESTION,
        exclude: new Set(),
      }),
    ).toEqual([]);
  });

  it('uses the seed threshold for models on the usual scale and the noise floor a model declares', () => {
    expect(defaultRecallMinScore({ minSimilarity: undefined })).toBe(0.7);
    expect(defaultRecallMinScore(bed.embeddings!)).toBe(0.1);
  });
});

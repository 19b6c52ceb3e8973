import { ModelPriceTable } from '../config/model-price-table';
import { ProviderRegistry, defaultRegistryPath } from '../config/provider-registry';
import { LogEntry } from '../observability/log-entry';
import { resetLogSink, setLogSink } from '../observability/logger';
import { toErrorBody } from '../errors/to-error-body';
import { ModelPriceResolver } from './model-price.resolver';
import { TokenLimitError } from './token-limit.error';
import { TokenCostEntry, TokenLimitExceeded, TokenTracker } from './token.tracker';

const registry = ProviderRegistry.load(defaultRegistryPath());
const modelPricing = new ModelPriceResolver(registry, ModelPriceTable.load());
const pricingFor = (provider: string, model: string) => modelPricing.priceOf({ provider, model })?.pricing ?? null;

describe(TokenTracker.name, () => {
  let logs: LogEntry[];

  beforeEach(() => {
    logs = [];
    setLogSink((entry) => logs.push(entry));
  });
  afterEach(() => resetLogSink());

  it('computes a cache-aware cost per million tokens', () => {
    const pricing = { inputPerMillion: 2.5, inputCacheHitPerMillion: 1.25, outputPerMillion: 10 };
    // (1000 − 400) × 2.5 + 400 × 1.25 + 200 × 10 = 1500 + 500 + 2000 = 4000 per million
    expect(
      TokenTracker.computeCost({ promptTokens: 1000, cachedTokens: 400, completionTokens: 200 }, pricing),
    ).toBeCloseTo(0.004, 12);
    expect(
      TokenTracker.computeCost({ promptTokens: 1_000_000, cachedTokens: 0, completionTokens: 0 }, pricing),
    ).toBeCloseTo(2.5, 12);
    // More cached than prompt (bad upstream data) never makes a negative cost.
    expect(TokenTracker.computeCost({ promptTokens: 10, cachedTokens: 50, completionTokens: 0 }, pricing)).toBeCloseTo(
      (10 * 1.25) / 1e6,
      12,
    );
  });

  it('records a call with the registry pricing, logs token_usage and sums per thread and workspace', () => {
    const tracker = new TokenTracker({ pricingFor });
    const entry = tracker.record(
      { promptTokens: 1200, completionTokens: 300, cachedTokens: 1000, totalTokens: 1500 },
      { provider: 'deepseek', model: 'deepseek-chat', threadId: 'ai_1', workspace: 'acme' },
    );
    // deepseek: 0.28 input, 0.028 cache hit, 0.42 output
    expect(entry.costUsd).toBeCloseTo((200 * 0.28 + 1000 * 0.028 + 300 * 0.42) / 1e6, 12);
    tracker.record(
      { promptTokens: 100, completionTokens: 10, cachedTokens: 0, totalTokens: 110 },
      { provider: 'anthropic', model: 'claude', threadId: 'ai_2', workspace: 'acme' },
    );
    tracker.record(
      { promptTokens: 50, completionTokens: 5, cachedTokens: 0, totalTokens: 55 },
      { provider: 'unknown-provider', model: 'm', threadId: 'ai_1' },
    );

    expect(tracker.totalsForThread('ai_1')).toMatchObject({ calls: 2, totalTokens: 1555, cachedTokens: 1000 });
    expect(tracker.totalsForWorkspace('acme')).toMatchObject({ calls: 2, totalTokens: 1610 });
    expect(tracker.totalsForWorkspace('nobody')).toMatchObject({ calls: 0, totalTokens: 0 });
    expect(tracker.getTotals()).toMatchObject({ calls: 3, promptTokens: 1350, completionTokens: 315 });
    expect(tracker.getEntries()[2].costUsd).toBe(0);
    expect(logs.filter((log) => log.event === 'token_usage')).toHaveLength(3);
    expect(logs[0]).toMatchObject({
      provider: 'deepseek',
      model: 'deepseek-chat',
      promptTokens: 1200,
      cachedTokens: 1000,
      threadId: 'ai_1',
      workspace: 'acme',
    });
  });

  it('prices a call by its model: gpt-4o behind openai-mini or a generic endpoint costs gpt-4o rates', () => {
    const tracker = new TokenTracker({ pricingFor });
    const usage = { promptTokens: 1_000_000, completionTokens: 1_000_000, cachedTokens: 0, totalTokens: 2_000_000 };
    expect(tracker.record(usage, { provider: 'openai-mini', model: 'gpt-4o' }).costUsd).toBeCloseTo(12.5, 9);
    expect(tracker.record(usage, { provider: 'openai-compatible', model: 'gpt-4o' }).costUsd).toBeCloseTo(12.5, 9);
    expect(tracker.record(usage, { provider: 'openai-mini', model: 'gpt-4o-mini' }).costUsd).toBeCloseTo(0.75, 9);
    // A provider that knows its price (a workspace configuration's) is billed at it.
    const own = { inputPerMillion: 1, inputCacheHitPerMillion: 1, outputPerMillion: 1 };
    expect(tracker.record(usage, { provider: 'openai-compatible', model: 'x', pricing: own }).costUsd).toBe(2);
  });

  it('counts an unpriced call at $0 but says so: priced false, one token_cost_unknown warning per model', () => {
    const tracker = new TokenTracker({ pricingFor });
    const usage = { promptTokens: 100, completionTokens: 10, cachedTokens: 0, totalTokens: 110 };
    const first = tracker.record(usage, { provider: 'openai-compatible', model: 'my-finetune' });
    tracker.record(usage, { provider: 'openai-compatible', model: 'my-finetune' });
    tracker.record(usage, { provider: 'openai', model: 'gpt-4o', pricing: null });
    expect(first).toMatchObject({ priced: false, costUsd: 0 });
    expect(logs.filter((log) => log.event === 'token_cost_unknown')).toEqual([
      expect.objectContaining({ level: 'warn', provider: 'openai-compatible', model: 'my-finetune' }),
      expect.objectContaining({ level: 'warn', provider: 'openai', model: 'gpt-4o' }),
    ]);
  });

  it('hands every recorded entry, chat and embedding, to onRecord; a throwing listener changes nothing', () => {
    const seen: TokenCostEntry[] = [];
    const tracker = new TokenTracker({ pricingFor, onRecord: (entry) => seen.push(entry) });
    tracker.record(
      { promptTokens: 100, completionTokens: 10, cachedTokens: 40, totalTokens: 110 },
      { provider: 'openai', model: 'gpt-4o' },
    );
    tracker.recordEmbedding(300, 'text-embedding-3-small', 0.02, { provider: 'openai' });
    expect(seen).toEqual([
      expect.objectContaining({
        kind: 'chat',
        provider: 'openai',
        model: 'gpt-4o',
        promptTokens: 100,
        completionTokens: 10,
        cachedTokens: 40,
        costUsd: expect.any(Number),
      }),
      expect.objectContaining({
        kind: 'embedding',
        provider: 'openai',
        model: 'text-embedding-3-small',
        promptTokens: 300,
        costUsd: (300 * 0.02) / 1e6,
      }),
    ]);
    expect(seen[0].costUsd).toBeGreaterThan(0);

    const failing = new TokenTracker({
      onRecord: () => {
        throw new Error('metrics down');
      },
    });
    expect(() =>
      failing.record(
        { promptTokens: 1, completionTokens: 1, cachedTokens: 0, totalTokens: 2 },
        { provider: 'p', model: 'm' },
      ),
    ).not.toThrow();
    expect(failing.getTotals().calls).toBe(1);
  });

  it('records embeddings as input tokens only', () => {
    const tracker = new TokenTracker({ pricingFor });
    const entry = tracker.recordEmbedding(500_000, 'text-embedding-3-small', 0.02, { workspace: 'acme' });
    expect(entry).toMatchObject({
      kind: 'embedding',
      promptTokens: 500_000,
      completionTokens: 0,
      cachedTokens: 0,
      totalTokens: 500_000,
      model: 'text-embedding-3-small',
    });
    expect(entry.costUsd).toBeCloseTo(0.01, 12);
    expect(tracker.totalsForWorkspace('acme').costUsd).toBeCloseTo(0.01, 12);
  });

  it('enforces the per-call, total and cost limits (0 = unlimited) and calls onLimitExceeded', () => {
    const exceeded: TokenLimitExceeded[] = [];
    const tracker = new TokenTracker({
      pricingFor,
      limits: { maxTokensPerCall: 1000, maxTotalTokens: 2500, maxCostUsd: 0 },
      onLimitExceeded: (event) => exceeded.push(event),
    });
    expect(() => tracker.checkCallLimit({ totalTokens: 1000 })).not.toThrow();
    expect(() => tracker.checkCallLimit(1001)).toThrow(TokenLimitError);

    tracker.record(
      { promptTokens: 900, completionTokens: 300, cachedTokens: 0, totalTokens: 1200 },
      { provider: 'openai', model: 'gpt-4o' },
    );
    expect(exceeded).toEqual([expect.objectContaining({ kind: 'per_call', limit: 1000, actual: 1200 })]);
    expect(() => tracker.assertWithinBudget()).not.toThrow();

    tracker.record(
      { promptTokens: 1000, completionTokens: 300, cachedTokens: 0, totalTokens: 1300 },
      { provider: 'openai', model: 'gpt-4o' },
    );
    expect(exceeded.map((event) => event.kind)).toEqual(['per_call', 'per_call', 'total_tokens']);
    let thrown: unknown;
    try {
      tracker.assertWithinBudget();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TokenLimitError);
    expect(toErrorBody(thrown)).toEqual({
      statusCode: 402,
      code: 'budget_exceeded',
      message: 'The AI usage budget has been reached.',
      details: { kind: 'total_tokens', limit: 2500, actual: 2500 },
    });
  });

  it('stops at the cost budget', () => {
    const tracker = new TokenTracker({ pricingFor, limits: { maxCostUsd: 0.01 }, locale: 'fr' });
    // anthropic: 3 input, 15 output per million → 0.0045
    tracker.record(
      { promptTokens: 1000, completionTokens: 100, cachedTokens: 0, totalTokens: 1100 },
      { provider: 'anthropic', model: 'claude' },
    );
    expect(() => tracker.assertWithinBudget()).not.toThrow();
    // + 0.006 = 0.0105 ≥ 0.01
    tracker.record(
      { promptTokens: 500, completionTokens: 300, cachedTokens: 0, totalTokens: 800 },
      { provider: 'anthropic', model: 'claude' },
    );
    expect(() => tracker.assertWithinBudget()).toThrow("Le budget d'utilisation de l'IA est atteint.");
  });

  it('formats a readable summary and resets', () => {
    const tracker = new TokenTracker({ pricingFor, limits: { maxCostUsd: 5 } });
    const entry = tracker.record(
      { promptTokens: 1200, completionTokens: 300, cachedTokens: 1000, totalTokens: 1500 },
      { provider: 'openai', model: 'gpt-4o' },
    );
    tracker.recordEmbedding(1000, 'text-embedding-3-small', 0.02, { provider: 'openai' });
    expect(tracker.formatEntry(entry)).toBe('openai/gpt-4o 1200+300 tok (cached 1000) $0.004750');
    const summary = tracker.formatSummary();
    expect(summary).toContain('Token usage: 2 call(s), 2500 tokens (prompt 2200, cached 1000, completion 300)');
    expect(summary).toContain('openai/gpt-4o: 1 call(s), 1500 tokens, $0.004750');
    expect(summary).toContain('embedding openai/text-embedding-3-small: 1 call(s), 1000 tokens');
    expect(summary).toContain('limits: per call unlimited, total unlimited, cost $5.00');
    tracker.reset();
    expect(tracker.getTotals()).toMatchObject({ calls: 0, costUsd: 0 });
    expect(tracker.getEntries()).toEqual([]);
  });
});

import { AppError } from '../errors/app-error';
import { LlmAbortError } from '../providers/llm-abort.error';
import { EmbeddingBatchRunner } from './embedding-batch.runner';
import { EmbeddingProvider } from './embedding-provider';

const instantBackoff = { baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 10, random: () => 0 };

/** Vectors [length of text]; fails for scripted reasons. */
class FlakyProvider implements EmbeddingProvider {
  readonly modelName = 'flaky';
  readonly dimension = 1;
  readonly calls: string[][] = [];
  constructor(private readonly fail: (texts: string[], call: number) => Error | null) {}
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls.push(texts);
    const error = this.fail(texts, this.calls.length);
    if (error) throw error;
    return texts.map((text) => Float32Array.of(text.length));
  }
  async embedOne(text: string): Promise<Float32Array> {
    return (await this.embed([text]))[0];
  }
}

describe(EmbeddingBatchRunner.name, () => {
  it('retries a retryable failure with backoff, then succeeds', async () => {
    const provider = new FlakyProvider((_texts, call) => (call < 3 ? new AppError('rate_limit', 'slow down') : null));
    const runner = new EmbeddingBatchRunner(provider, { backoff: instantBackoff });
    expect(await runner.embed(['a', 'bb'])).toEqual([{ vector: Float32Array.of(1) }, { vector: Float32Array.of(2) }]);
    expect(runner.calls).toBe(3);
  });

  it('fails the whole batch once retries of a retryable failure are exhausted, without splitting it', async () => {
    const provider = new FlakyProvider(() => new AppError('server_error', 'down'));
    const runner = new EmbeddingBatchRunner(provider, { backoff: instantBackoff, maxRetries: 1 });
    const outcomes = await runner.embed(['a', 'b', 'c']);
    expect(outcomes).toEqual([
      { error: 'server_error: down' },
      { error: 'server_error: down' },
      { error: 'server_error: down' },
    ]);
    expect(provider.calls).toHaveLength(2);
  });

  it('splits a batch refused for one input down to that input: the others get their vector', async () => {
    const provider = new FlakyProvider((texts) =>
      texts.includes('poison') ? new AppError('bad_request', 'input refused') : null,
    );
    const runner = new EmbeddingBatchRunner(provider, { backoff: instantBackoff });
    const outcomes = await runner.embed(['a', 'bb', 'poison', 'dddd', 'eeeee']);
    expect(outcomes.map((outcome) => ('vector' in outcome ? outcome.vector[0] : outcome.error))).toEqual([
      1,
      2,
      'bad_request: input refused',
      4,
      5,
    ]);
  });

  it('lets an abort through instead of counting it as a failure', async () => {
    const provider = new FlakyProvider(() => new LlmAbortError());
    await expect(new EmbeddingBatchRunner(provider).embed(['a', 'b'])).rejects.toBeInstanceOf(LlmAbortError);
    expect(provider.calls).toHaveLength(1);
  });

  it('waits for beforeCall before every upstream call', async () => {
    const provider = new FlakyProvider((_texts, call) => (call === 1 ? new AppError('timeout', 'late') : null));
    const beforeCall = jest.fn(async () => undefined);
    await new EmbeddingBatchRunner(provider, { backoff: instantBackoff, beforeCall }).embed(['a']);
    expect(beforeCall).toHaveBeenCalledTimes(2);
  });
});

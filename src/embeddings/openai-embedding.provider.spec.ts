import { deterministicVector } from '../../test/support/scripted-llm/embeddings-wire';
import { ScriptedLlmServer } from '../../test/support/scripted-llm-server';
import { AppError } from '../errors/app-error';
import { truncateToTokenLimit } from './embedding-input.truncator';
import { EmbeddingUsage } from './embedding-usage';
import { OpenAiEmbeddingProvider, OpenAiEmbeddingProviderOptions } from './openai-embedding.provider';

const DIMENSION = 16;

describe(OpenAiEmbeddingProvider.name, () => {
  let server: ScriptedLlmServer;
  let usage: EmbeddingUsage[];

  beforeAll(async () => {
    server = await ScriptedLlmServer.start({ embeddingDimension: DIMENSION });
    // Loads the cl100k ranks once, outside any test's time budget (seconds on a busy machine).
    truncateToTokenLimit('é'.repeat(20), 10);
  }, 120_000);
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    usage = [];
  });

  function provider(options: Partial<OpenAiEmbeddingProviderOptions> = {}): OpenAiEmbeddingProvider {
    return new OpenAiEmbeddingProvider({
      model: 'nomic-embed-text',
      apiKey: 'sk-scripted-test',
      baseURL: server.openAiBaseUrl,
      providerName: 'openai-compatible',
      maxRetries: 0,
      onUsage: (entry) => usage.push(entry),
      ...options,
    });
  }

  function expected(text: string): number[] {
    return Array.from(new Float32Array(deterministicVector(text, DIMENSION)));
  }

  it('cancels the upstream request when the signal aborts', async () => {
    // Long enough that a loaded machine cannot finish the response before the abort; short enough
    // to be over before the other tests of this file finish (the server's delay timer keeps running).
    server.enqueueEmbeddings({ delayMs: 4000 });
    const controller = new AbortController();
    const pending = provider().embed(['fetch players'], controller.signal);
    await server.waitForRequests(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await server.waitForClientClose(0, 10_000);

    const already = new AbortController();
    already.abort();
    await expect(provider().embedOne('fetch players', already.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.requests).toHaveLength(1);
  });

  it('sends batches of batchSize in order and returns one vector per text, in input order', async () => {
    const texts = Array.from({ length: 7 }, (_, index) => `node ${index}: sort players by points`);
    const vectors = await provider({ batchSize: 3 }).embed(texts);

    expect(server.requests.map((request) => [request.path, request.body.input])).toEqual([
      ['/v1/embeddings', texts.slice(0, 3)],
      ['/v1/embeddings', texts.slice(3, 6)],
      ['/v1/embeddings', texts.slice(6)],
    ]);
    expect(server.requests[0].body).toMatchObject({ model: 'nomic-embed-text', encoding_format: 'float' });
    expect(server.requests[0].headers.authorization).toBe('[redacted]');
    expect(vectors.map((vector) => Array.from(vector))).toEqual(texts.map(expected));
  });

  it('decodes the base64 wire format that OpenAI itself answers', async () => {
    const vectors = await provider({ encodingFormat: 'base64' }).embed(['fetch players', 'render table']);
    expect(server.lastRequest?.body.encoding_format).toBe('base64');
    expect(vectors.map((vector) => Array.from(vector))).toEqual([expected('fetch players'), expected('render table')]);
  });

  it('reports the usage of every request, with the model price', async () => {
    const known = provider({ model: 'text-embedding-3-small', providerName: 'openai', batchSize: 2 });
    server.enqueueEmbeddings(
      { vectors: [new Array(1536).fill(0.1), new Array(1536).fill(0.2)] },
      { vectors: [new Array(1536).fill(0.3)] },
    );
    await known.embed(['abcdefgh', 'abcd', 'abcdefghijkl']);
    expect(usage).toEqual([
      { provider: 'openai', model: 'text-embedding-3-small', inputTokens: 3, pricePerMillion: 0.02 },
      { provider: 'openai', model: 'text-embedding-3-small', inputTokens: 3, pricePerMillion: 0.02 },
    ]);
  });

  it('learns the dimension of a model outside the table from its first answer', async () => {
    const unknown = provider();
    expect(unknown.dimension).toBe(0);
    const vector = await unknown.embedOne('fetch players');
    expect(vector).toHaveLength(DIMENSION);
    expect(unknown.dimension).toBe(DIMENSION);
    expect(usage).toEqual([
      { provider: 'openai-compatible', model: 'nomic-embed-text', inputTokens: 4, pricePerMillion: 0 },
    ]);
  });

  it('refuses an answer whose dimension differs from the model’s', async () => {
    const known = provider({ model: 'text-embedding-3-large' });
    await expect(known.embedOne('fetch players')).rejects.toMatchObject({
      code: 'server_error',
      message: expect.stringContaining('3072'),
    });
  });

  it('never sends blank texts: they get the zero vector', async () => {
    const vectors = await provider().embed(['', 'fetch players', '   ']);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].body.input).toEqual(['fetch players']);
    expect(vectors.map((vector) => vector.length)).toEqual([DIMENSION, DIMENSION, DIMENSION]);
    expect(Array.from(vectors[0]).every((value) => value === 0)).toBe(true);
  });

  it('cuts inputs longer than the token limit before sending them', async () => {
    const long = 'données '.repeat(200);
    await provider({ maxInputTokens: 50 }).embedOne(long);
    const sent: string = server.requests[0].body.input[0];
    expect(sent.length).toBeLessThan(long.length);
    expect(long.startsWith(sent)).toBe(true);
  });

  it('throws classified errors: 401 as auth_error, 429 as a retryable rate_limit', async () => {
    server.enqueueEmbeddings({
      error: { status: 401, type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key' },
    });
    const authFailure = provider().embedOne('fetch players');
    await expect(authFailure).rejects.toBeInstanceOf(AppError);
    await expect(authFailure).rejects.toMatchObject({ code: 'auth_error', retryable: false });

    server.enqueueEmbeddings({ error: { status: 429, type: 'rate_limit_exceeded', message: 'Slow down' } });
    await expect(provider().embed(['a text'])).rejects.toMatchObject({ code: 'rate_limit', retryable: true });
  });

  it('lets the SDK retry a transient failure', async () => {
    server.enqueueEmbeddings({ error: { status: 503, message: 'overloaded', headers: { 'retry-after-ms': '1' } } });
    const vector = await provider({ maxRetries: 1 }).embedOne('fetch players');
    expect(Array.from(vector)).toEqual(expected('fetch players'));
    expect(server.requests).toHaveLength(2);
  });
});

import { createHash } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  anthropicErrorBody,
  anthropicRequestRefusal,
  renderAnthropicJson,
  renderAnthropicStream,
} from './scripted-llm/anthropic-wire';
import { deterministicVector, embeddingInputs, renderEmbeddings } from './scripted-llm/embeddings-wire';
import { loadFixtureResponse } from './scripted-llm/fixture-replay';
import { openAiErrorBody, renderOpenAiJson, renderOpenAiStream } from './scripted-llm/openai-wire';
import { PromptCacheSimulator, promptTokens } from './scripted-llm/prompt-cache';
import {
  RecordedRequest,
  ScriptedEmbeddings,
  ScriptedError,
  ScriptedTurn,
  ScriptedTurnInput,
} from './scripted-llm/scripted-turn';

export type {
  RecordedRequest,
  ScriptedEmbeddings,
  ScriptedError,
  ScriptedStreamError,
  ScriptedToolCall,
  ScriptedTurn,
  ScriptedTurnInput,
  ScriptedUsage,
} from './scripted-llm/scripted-turn';
export { llmFixtureManifest } from './scripted-llm/fixture-replay';
export type { LlmFixtureManifestEntry } from './scripted-llm/fixture-replay';

export interface ScriptedLlmServerOptions {
  /** Dimension of the default deterministic embeddings (a request's `dimensions` wins). Default 16. */
  embeddingDimension?: number;
  /**
   * Report in derived usage (turns without `usage`) the prompt's tokens and the part a provider's
   * prompt cache would serve (PromptCacheSimulator: OpenAI's automatic prefix cache, Anthropic's
   * cache_control breakpoints). Off by default: derived usage then reports no cached tokens. The
   * figures are recorded on every request either way (`RecordedRequest.prompt`).
   */
  promptCache?: boolean;
  /**
   * The model's context window in tokens: a prompt larger than this is refused before any generation
   * with the provider's own context-length error (OpenAI 400 `context_length_exceeded`, Anthropic 400
   * "prompt is too long"), and uses no scripted turn.
   */
  contextLength?: number;
}

/** What one response will be: status, headers and the pieces written one by one. */
interface PlannedResponse {
  status: number;
  headers: Record<string, string>;
  chunks: string[];
  turn: Pick<ScriptedTurn, 'delayMs' | 'disconnectAfterChunks' | 'hangAfterChunks' | 'endAfterChunks' | 'raw'>;
}

const SECRET_HEADER = /^(authorization|x-api-key|api-key|cookie|proxy-authorization)$/i;
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };
const JSON_HEADERS = { 'content-type': 'application/json' };

function endpointOf(path: string): RecordedRequest['endpoint'] {
  const bare = path.split('?')[0].replace(/\/+$/, '');
  if (bare.endsWith('/chat/completions')) return 'openai.chat';
  if (bare.endsWith('/messages')) return 'anthropic.messages';
  if (bare.endsWith('/embeddings')) return 'openai.embeddings';
  return 'unknown';
}

const BATCH_BYTES = 64 * 1024;

/** End (exclusive) of a run of pieces starting at `from` that fits in one write. */
function batchEnd(chunks: string[], from: number, limit: number): number {
  let size = 0;
  let index = from;
  while (index < limit && (index === from || size + chunks[index].length <= BATCH_BYTES))
    size += chunks[index++].length;
  return index;
}

/** Resolves on 'drain' (or 'close'), leaving no listener behind. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** SHA-256 (hex) of a key, as RecordedRequest.apiKeySha256 records what a client presented. */
export function apiKeySha256(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The key a request presented (bearer token or key header), hashed; null without one. */
function presentedKeyHash(req: IncomingMessage): string | null {
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const header = req.headers['x-api-key'] ?? req.headers['api-key'];
  const key = bearer ?? (Array.isArray(header) ? header[0] : header);
  return key ? apiKeySha256(key) : null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A local HTTP server that speaks the LLM providers' wire protocols from a script, for tests and
 * benches that run the real SDKs (no SDK mocks, no real API):
 *
 * - OpenAI `POST …/chat/completions` (SSE or JSON, per the request's `stream`),
 * - Anthropic `POST …/v1/messages` (SSE events or JSON),
 * - OpenAI `POST …/embeddings` (deterministic vectors, or scripted with enqueueEmbeddings).
 *
 * Chat requests consume one protocol-agnostic turn each, rendered in the wire format of the
 * endpoint that received the request:
 *
 * ```ts
 * const server = await ScriptedLlmServer.start();
 * server.enqueue(
 *   { text: 'Hello there', chunkSize: 5, usage: { prompt: 120, completion: 3, cached: 100 } },
 *   { toolCalls: [{ name: 'search_nodes', arguments: { query: 'api' }, fragments: 4 }, { name: 'read_node_detail', arguments: '{"nodeKey":"root"}' }] },
 *   { error: { status: 429, headers: { 'retry-after': '1' } } },       // the provider's real error body
 *   { fixture: 'openai/chat-stream-text-usage.sse' },                    // a recorded response, replayed byte for byte
 *   { text: 'slow…', delayMs: 50 },                                      // slow stream
 *   { text: 'cut', disconnectAfterChunks: 2 },                           // mid-stream disconnect
 *   { text: 'never ends', hangAfterChunks: 1 },                          // open until the client aborts
 *   { text: 'then noise', corruptAfterChunks: { chunks: 2, data: 'data: {"choices":[{\n\n' } }, // garbage SSE
 *   { raw: { status: 200, headers: { 'content-type': 'text/html' }, chunks: ['<html>…</html>'] } }, // anything, as is
 * );
 * const env = server.providerEnv('openai');   // { LLM_PROVIDER, OPENAI_API_KEY, OPENAI_BASE_URL } for startTestApp
 * // … run the code under test …
 * expect(server.requests[0].body.messages).toHaveLength(2);
 * await server.waitForClientClose(6);         // the abort closed the upstream connection
 * await server.close();
 * ```
 *
 * An empty queue answers 500 "script exhausted" (in the endpoint's error shape), so a test that
 * makes more calls than it scripted notices. Every request is recorded (headers with secrets
 * redacted, parsed body, whether the client closed early and when).
 */
export class ScriptedLlmServer {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  private readonly turns: ScriptedTurnInput[] = [];
  private readonly embeddings: ScriptedEmbeddings[] = [];
  private readonly closeWaiters = new Map<number, Array<() => void>>();
  /** Requests whose connection the script itself cut (disconnectAfterChunks): not a client close. */
  private readonly cutByServer = new WeakSet<RecordedRequest>();
  private readonly promptCaches = {
    'openai.chat': new PromptCacheSimulator(),
    'anthropic.messages': new PromptCacheSimulator(),
  };
  private turnCounter = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly options: ScriptedLlmServerOptions,
  ) {}

  /** Starts on 127.0.0.1 with a random free port. */
  static async start(options: ScriptedLlmServerOptions = {}): Promise<ScriptedLlmServer> {
    let instance: ScriptedLlmServer | undefined;
    const server = createServer((req, res) => {
      void instance?.handle(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    instance = new ScriptedLlmServer(server, (server.address() as AddressInfo).port, options);
    return instance;
  }

  /** http://127.0.0.1:<port> — the Anthropic SDK's baseURL (it appends /v1/messages). */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** http://127.0.0.1:<port>/v1 — the OpenAI SDK's baseURL (it appends /chat/completions). */
  get openAiBaseUrl(): string {
    return `${this.url}/v1`;
  }

  get anthropicBaseUrl(): string {
    return this.url;
  }

  /** Turns not consumed yet. */
  get pendingTurns(): number {
    return this.turns.length;
  }

  get lastRequest(): RecordedRequest | undefined {
    return this.requests[this.requests.length - 1];
  }

  /** Queues chat turns (one per upstream chat request, in order). */
  enqueue(...turns: ScriptedTurnInput[]): this {
    this.turns.push(...turns);
    return this;
  }

  /** Queues /embeddings answers; when none is queued, deterministic vectors are answered. */
  enqueueEmbeddings(...items: ScriptedEmbeddings[]): this {
    this.embeddings.push(...items);
    return this;
  }

  /** Forgets queued turns, recorded requests and what the prompt caches hold. */
  reset(): void {
    this.turns.length = 0;
    this.embeddings.length = 0;
    this.requests.length = 0;
    this.promptCaches['openai.chat'] = new PromptCacheSimulator();
    this.promptCaches['anthropic.messages'] = new PromptCacheSimulator();
  }

  /**
   * The environment that points the service at this server for a registry provider:
   * `LLM_PROVIDER`, its key variable and its `<NAME>_BASE_URL` (openai-compatible: LLM_BASE_URL,
   * LLM_API_KEY, LLM_MODEL).
   */
  providerEnv(provider: string, model?: string): Record<string, string> {
    if (provider === 'openai-compatible') {
      return {
        LLM_PROVIDER: provider,
        LLM_BASE_URL: this.openAiBaseUrl,
        LLM_API_KEY: 'sk-scripted-test',
        LLM_MODEL: model ?? 'scripted-model',
      };
    }
    const name = provider.toUpperCase().replace(/[^A-Z0-9]/g, '_');
    const keyName = provider === 'openai-mini' ? 'OPENAI' : name;
    return {
      LLM_PROVIDER: provider,
      [`${keyName}_API_KEY`]: 'sk-scripted-test',
      [`${name}_BASE_URL`]: provider === 'anthropic' ? this.anthropicBaseUrl : this.openAiBaseUrl,
      ...(model ? { LLM_MODEL: model } : {}),
    };
  }

  /** Resolves once `count` requests have arrived. */
  async waitForRequests(count: number, timeoutMs = 5000): Promise<RecordedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      if (Date.now() > deadline)
        throw new Error(`scripted-llm-server: ${this.requests.length}/${count} requests after ${timeoutMs} ms`);
      await sleep(5);
    }
    return this.requests.slice(0, count);
  }

  /**
   * Resolves when the client closed request `index`'s connection before the response ended (an
   * aborted or dropped request); rejects after `timeoutMs`.
   */
  waitForClientClose(index = this.requests.length - 1, timeoutMs = 2000): Promise<RecordedRequest> {
    const record = this.requests[index];
    if (record?.closedEarly) return Promise.resolve(record);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`scripted-llm-server: request ${index} was not closed by the client within ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
      const waiters = this.closeWaiters.get(index) ?? [];
      waiters.push(() => {
        clearTimeout(timer);
        resolve(this.requests[index]);
      });
      this.closeWaiters.set(index, waiters);
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await this.readBody(req);
    const path = req.url ?? '/';
    let body: any = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      // keep the raw text
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      headers[name] = SECRET_HEADER.test(name)
        ? '[redacted]'
        : Array.isArray(value)
          ? value.join(', ')
          : String(value ?? '');
    }
    const record: RecordedRequest = {
      index: this.requests.length,
      method: req.method ?? 'GET',
      path,
      endpoint: endpointOf(path),
      headers,
      apiKeySha256: presentedKeyHash(req),
      body,
      stream: body?.stream === true,
      receivedAt: Date.now(),
      status: null,
      chunksSent: 0,
      completed: false,
      closedEarly: false,
      closedAt: null,
      exhausted: false,
      prompt: null,
      promptCacheReported: this.options.promptCache === true,
    };
    this.requests.push(record);
    res.on('close', () => {
      record.closedAt = Date.now();
      if (!res.writableFinished && !this.cutByServer.has(record)) {
        record.closedEarly = true;
        for (const waiter of this.closeWaiters.get(record.index) ?? []) waiter();
        this.closeWaiters.delete(record.index);
      }
    });
    const planned = this.plan(record);
    record.status = planned.status;
    await this.send(res, record, planned);
  }

  private plan(record: RecordedRequest): PlannedResponse {
    if (record.method !== 'POST' || record.endpoint === 'unknown') {
      return this.errorResponse(
        record,
        { status: 404, message: `scripted-llm-server: no route for ${record.method} ${record.path}` },
        {},
      );
    }
    if (record.endpoint === 'openai.embeddings') return this.planEmbeddings(record);
    // Refused as the real API does, before any generation: no scripted turn is used.
    const endpoint = record.endpoint;
    const refusal =
      (endpoint === 'anthropic.messages' ? anthropicRequestRefusal(record.body) : null) ??
      this.contextLengthRefusal(endpoint, record.body);
    if (refusal) return this.errorResponse(record, refusal, {});
    record.prompt = this.promptCaches[endpoint].observe(endpoint, record.body);
    const input = this.turns.shift();
    if (!input) {
      record.exhausted = true;
      return this.errorResponse(
        record,
        {
          status: 500,
          type: 'script_exhausted',
          message: `scripted-llm-server: script exhausted: no turn queued for ${record.method} ${record.path}`,
        },
        {},
      );
    }
    const turn = typeof input === 'function' ? input(record) : input;
    const turnNumber = ++this.turnCounter;
    const extraHeaders = turn.headers ?? {};
    if (turn.fixture) {
      const fixture = loadFixtureResponse(turn.fixture);
      return {
        status: fixture.status,
        headers: { 'content-type': fixture.contentType, ...extraHeaders },
        chunks: fixture.chunks,
        turn,
      };
    }
    if (turn.error) return this.errorResponse(record, turn.error, turn);
    if (turn.raw)
      return {
        status: turn.raw.status,
        headers: { ...(turn.raw.headers ?? {}), ...extraHeaders },
        chunks: turn.raw.chunks,
        turn,
      };
    const anthropic = record.endpoint === 'anthropic.messages';
    if (record.stream) {
      const rendered = anthropic
        ? renderAnthropicStream(turn, record, turnNumber)
        : renderOpenAiStream(turn, record, turnNumber);
      const corrupt = turn.corruptAfterChunks;
      const chunks = corrupt ? [...rendered.slice(0, corrupt.chunks), corrupt.data] : rendered;
      return { status: 200, headers: { ...SSE_HEADERS, ...extraHeaders }, chunks, turn };
    }
    const json = anthropic ? renderAnthropicJson(turn, record, turnNumber) : renderOpenAiJson(turn, record, turnNumber);
    return { status: 200, headers: { ...JSON_HEADERS, ...extraHeaders }, chunks: [JSON.stringify(json)], turn };
  }

  /** The provider's answer to a prompt larger than `contextLength`, as each API words it. */
  private contextLengthRefusal(endpoint: 'openai.chat' | 'anthropic.messages', body: unknown): ScriptedError | null {
    const limit = this.options.contextLength;
    if (limit === undefined) return null;
    const tokens = promptTokens(endpoint, body);
    if (tokens <= limit) return null;
    return endpoint === 'anthropic.messages'
      ? {
          status: 400,
          type: 'invalid_request_error',
          message: `prompt is too long: ${tokens} tokens > ${limit} maximum`,
        }
      : {
          status: 400,
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
          message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
        };
  }

  private planEmbeddings(record: RecordedRequest): PlannedResponse {
    const scripted = this.embeddings.shift();
    if (scripted?.error) return this.errorResponse(record, scripted.error, scripted);
    if (scripted?.fixture) {
      const fixture = loadFixtureResponse(scripted.fixture);
      return {
        status: fixture.status,
        headers: { 'content-type': fixture.contentType },
        chunks: fixture.chunks,
        turn: scripted,
      };
    }
    const dimension =
      typeof record.body?.dimensions === 'number' ? record.body.dimensions : (this.options.embeddingDimension ?? 16);
    const vectors =
      scripted?.vectors ?? embeddingInputs(record.body).map((text) => deterministicVector(text, dimension));
    return {
      status: 200,
      headers: JSON_HEADERS,
      chunks: [JSON.stringify(renderEmbeddings(vectors, record.body))],
      turn: scripted ?? {},
    };
  }

  private errorResponse(record: RecordedRequest, error: ScriptedError, turn: PlannedResponse['turn']): PlannedResponse {
    const body = record.endpoint === 'anthropic.messages' ? anthropicErrorBody(error) : openAiErrorBody(error);
    return {
      status: error.status,
      headers: { ...JSON_HEADERS, ...(error.headers ?? {}) },
      chunks: [typeof body === 'string' ? body : JSON.stringify(body)],
      turn,
    };
  }

  private async send(res: ServerResponse, record: RecordedRequest, planned: PlannedResponse): Promise<void> {
    const { delayMs = 0, disconnectAfterChunks, hangAfterChunks, endAfterChunks } = planned.turn;
    const streaming =
      planned.headers['content-type']?.startsWith('text/event-stream') || planned.turn.raw !== undefined;
    // A JSON answer that hangs or disconnects does so before its headers.
    if (!streaming && (hangAfterChunks === 0 || disconnectAfterChunks === 0)) {
      if (disconnectAfterChunks === 0) this.cut(res, record);
      return;
    }
    res.writeHead(planned.status, planned.headers);
    if (streaming) res.flushHeaders();
    const { chunks } = planned;
    const stops = [hangAfterChunks, disconnectAfterChunks, endAfterChunks].filter(
      (stop): stop is number => stop !== undefined,
    );
    const count = Math.min(chunks.length, ...stops);
    let index = 0;
    while (index < count) {
      if (delayMs > 0) await sleep(delayMs);
      if (res.destroyed) return;
      // Without a delay, pieces go out in batches: boundaries mean nothing on the wire, and one
      // write per event would make this server the bottleneck of throughput benches.
      const next = delayMs > 0 ? index + 1 : batchEnd(chunks, index, count);
      const data = next === index + 1 ? chunks[index] : chunks.slice(index, next).join('');
      if (!res.write(data)) await drained(res);
      record.chunksSent += next - index;
      index = next;
    }
    if (hangAfterChunks !== undefined && hangAfterChunks <= count) return;
    const cutting = disconnectAfterChunks !== undefined && Math.min(disconnectAfterChunks, chunks.length) === count;
    // The delay also comes before a cut or an early end, so the client has read what was sent.
    if (count < chunks.length && delayMs > 0) await sleep(delayMs);
    if (res.destroyed) return;
    if (cutting) {
      this.cut(res, record);
      return;
    }
    res.end();
    record.completed = true;
  }

  private cut(res: ServerResponse, record: RecordedRequest): void {
    this.cutByServer.add(record);
    res.socket?.destroy();
  }

  private readBody(req: IncomingMessage): Promise<string> {
    return new Promise((resolve) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
      req.on('error', () => resolve(Buffer.concat(parts).toString('utf8')));
    });
  }
}

import OpenAI from 'openai';
import { AppError } from '../errors/app-error';
import { classifyLLMError } from '../providers/llm-error.classifier';
import { isAbortError, LlmAbortError } from '../providers/llm-abort.error';
import { LlmProviderError } from '../providers/llm-provider.error';
import { EmbeddingProvider } from './embedding-provider';
import { truncateToTokenLimit } from './embedding-input.truncator';
import { EmbeddingUsageListener } from './embedding-usage';
import { DEFAULT_MAX_INPUT_TOKENS, OPENAI_EMBEDDING_MODELS } from './openai-embedding-models';

export interface OpenAiEmbeddingProviderOptions {
  model: string;
  /** Self-hosted servers (Ollama, vLLM, TEI) ignore it, but the SDK needs a value. */
  apiKey: string;
  /** Default https://api.openai.com/v1; any OpenAI-compatible `/v1` endpoint works. */
  baseURL?: string;
  /** Registry-style name for logs and errors ("openai", "openai-compatible"). */
  providerName?: string;
  /** Texts per upstream request (EMBEDDING_BATCH_SIZE). Default 64. */
  batchSize?: number;
  /** SDK retries on 429/5xx/connection errors, with its backoff. Default 2. */
  maxRetries?: number;
  /** Per request. Default 30 s. */
  timeoutMs?: number;
  /** Longer inputs are cut to this many cl100k_base tokens. Default: the model's limit, else 8191. */
  maxInputTokens?: number;
  /** Default: the model's price in OPENAI_EMBEDDING_MODELS, else 0 (self-hosted). */
  pricePerMillion?: number;
  /**
   * `base64` (OpenAI's compact wire format, the default for api.openai.com) or `float` (plain JSON
   * arrays, the default for other endpoints since not every compatible server speaks base64).
   * Both answers are decoded here either way.
   */
  encodingFormat?: 'base64' | 'float';
  onUsage?: EmbeddingUsageListener;
}

/**
 * Embeddings through the `openai` SDK: OpenAI itself (text-embedding-3-small 1536 dimensions,
 * -3-large 3072, ada-002 1536) or any OpenAI-compatible endpoint (Ollama, vLLM, TEI) given its
 * baseURL. Texts go up in batches of `batchSize`, one request after the other; vectors come back in
 * input order whatever order the server lists them in. Each request's usage is reported to
 * `onUsage`. Failures surface as LlmProviderError (protocol error codes: rate_limit, auth_error,
 * server_error, ...) after the SDK's retries; an aborted signal surfaces as an AbortError.
 *
 * Dimension: known for the models of the table. For any other model it is learned from the first
 * response (0 until then); every later response must have the same dimension, or the call fails:
 * vectors of different sizes must never be stored under one model name.
 * Blank texts are not sent (the API refuses them): they get the zero vector, similar to nothing.
 */
export class OpenAiEmbeddingProvider implements EmbeddingProvider {
  readonly modelName: string;
  readonly providerName: string;
  private readonly client: OpenAI;
  private readonly batchSize: number;
  private readonly maxInputTokens: number;
  private readonly pricePerMillion: number;
  private readonly encodingFormat: 'base64' | 'float';
  private knownDimension: number;

  constructor(private readonly options: OpenAiEmbeddingProviderOptions) {
    const info = OPENAI_EMBEDDING_MODELS[options.model];
    this.modelName = options.model;
    this.providerName = options.providerName ?? 'openai';
    this.batchSize = Math.max(1, options.batchSize ?? 64);
    this.maxInputTokens = options.maxInputTokens ?? info?.maxInputTokens ?? DEFAULT_MAX_INPUT_TOKENS;
    this.pricePerMillion = options.pricePerMillion ?? info?.pricePerMillion ?? 0;
    this.encodingFormat = options.encodingFormat ?? (options.baseURL === undefined ? 'base64' : 'float');
    this.knownDimension = info?.dimension ?? 0;
    this.client = new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      maxRetries: options.maxRetries ?? 2,
      timeout: options.timeoutMs ?? 30_000,
    });
  }

  /** The model's dimension; 0 for a model outside the table until its first response. */
  get dimension(): number {
    return this.knownDimension;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const vectors = new Array<Float32Array>(texts.length);
    const pending: number[] = [];
    texts.forEach((text, index) => {
      if (text.trim() === '') vectors[index] = new Float32Array(this.knownDimension);
      else pending.push(index);
    });
    for (let start = 0; start < pending.length; start += this.batchSize) {
      const batch = pending.slice(start, start + this.batchSize);
      const batchVectors = await this.request(
        batch.map((index) => truncateToTokenLimit(texts[index], this.maxInputTokens)),
        signal,
      );
      batch.forEach((textIndex, position) => (vectors[textIndex] = batchVectors[position]));
    }
    // Blank texts met before the dimension was learned get their zero vector at the right size.
    return vectors.map((vector) =>
      vector.length === 0 && this.knownDimension > 0 ? new Float32Array(this.knownDimension) : vector,
    );
  }

  async embedOne(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const [vector] = await this.embed([text], signal);
    return vector;
  }

  private async request(inputs: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    if (signal?.aborted) throw new LlmAbortError('The embedding request was aborted', { cause: signal.reason });
    let response: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      response = await this.client.embeddings.create(
        { model: this.modelName, input: inputs, encoding_format: this.encodingFormat },
        { signal },
      );
    } catch (error) {
      if (signal?.aborted || isAbortError(error)) {
        throw new LlmAbortError('The embedding request was aborted', { cause: error });
      }
      throw new LlmProviderError(classifyLLMError(error, 'en', this.providerName), error);
    }

    const vectors = this.decode(response, inputs.length);
    const inputTokens = response.usage?.prompt_tokens;
    if (typeof inputTokens === 'number' && this.options.onUsage) {
      this.options.onUsage({
        provider: this.providerName,
        model: this.modelName,
        inputTokens,
        pricePerMillion: this.pricePerMillion,
      });
    }
    return vectors;
  }

  private decode(response: OpenAI.Embeddings.CreateEmbeddingResponse, expected: number): Float32Array[] {
    const items = Array.isArray(response?.data) ? response.data : [];
    const vectors = new Array<Float32Array | undefined>(expected);
    items.forEach((item, position) => {
      const index = typeof item.index === 'number' ? item.index : position;
      if (index >= 0 && index < expected) vectors[index] = toFloat32(item.embedding as unknown);
    });
    if (items.length !== expected || vectors.some((vector) => vector === undefined || vector.length === 0)) {
      throw this.invalidResponse(`expected ${expected} embeddings, got ${items.length}`);
    }
    const dimension = this.knownDimension || (vectors[0] as Float32Array).length;
    const wrong = vectors.find((vector) => (vector as Float32Array).length !== dimension);
    if (wrong) throw this.invalidResponse(`expected vectors of dimension ${dimension}, got ${wrong.length}`);
    this.knownDimension = dimension;
    return vectors as Float32Array[];
  }

  private invalidResponse(reason: string): AppError {
    return new AppError('server_error', `Invalid embeddings response from ${this.providerName}: ${reason}`, {
      provider: this.providerName,
      model: this.modelName,
    });
  }
}

/** A float array (encoding_format "float") or little-endian float32 bytes in base64 ("base64"). */
function toFloat32(embedding: unknown): Float32Array {
  if (Array.isArray(embedding)) return Float32Array.from(embedding as number[]);
  if (typeof embedding === 'string') {
    const bytes = Buffer.from(embedding, 'base64');
    const copy = new Uint8Array(bytes.length - (bytes.length % 4));
    copy.set(bytes.subarray(0, copy.length));
    return new Float32Array(copy.buffer);
  }
  return new Float32Array(0);
}

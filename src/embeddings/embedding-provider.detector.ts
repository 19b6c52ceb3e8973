import { AppConfig } from '../config/app-config';
import { ConfigValidationError } from '../config/config-validation.error';
import { Logger } from '../observability/logger';
import { EmbeddingProvider } from './embedding-provider';
import { EmbeddingUsageListener } from './embedding-usage';
import { LocalHashEmbeddingProvider } from './local-hash-embedding.provider';
import { LocalWordsEmbeddingProvider } from './local-words-embedding.provider';
import { OpenAiEmbeddingProvider } from './openai-embedding.provider';
import { DEFAULT_OPENAI_EMBEDDING_MODEL } from './openai-embedding-models';

export type EmbeddingProviderKind = 'local' | 'openai' | 'openai-compatible' | 'ollama' | 'none';

/** What detection decided, before anything is built: pure data, so the rules are testable as a matrix. */
export interface EmbeddingSettings {
  kind: EmbeddingProviderKind;
  /** `override`: EMBEDDING_PROVIDER; `openai_api_key`: OPENAI_API_KEY found; `default`: nothing set, local. */
  reason: 'override' | 'openai_api_key' | 'default';
  model: string | null;
  baseURL: string | undefined;
  apiKey: string | undefined;
  batchSize: number;
  /**
   * The local model: `words` (word vectors and hashed features, the default) or `hash` (hashed
   * features only) when EMBEDDING_MODEL=local-hash-v1-<dimension>.
   */
  localModel: 'words' | 'hash';
  /** Dimension of the `hash` model: from EMBEDDING_MODEL=local-hash-v1-<dimension>, else its default. */
  localDimension: number;
  /** EMBEDDING_MODEL was set but does not apply to the chosen provider. */
  ignoredModel: string | null;
}

/** Ollama's defaults: its address on the same machine, and its most pulled embedding model. */
export const OLLAMA_DEFAULT_BASE_URL = 'http://localhost:11434';
export const OLLAMA_DEFAULT_MODEL = 'nomic-embed-text';
const LOCAL_HASH_MODEL = new RegExp(`^local-hash-v${LocalHashEmbeddingProvider.VERSION}-(\\d+)$`);
/** Self-hosted servers ignore the key, but the SDK refuses to start without one. */
const PLACEHOLDER_API_KEY = 'not-needed';

function present(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * The detection rules, with an explicit override:
 *  1. EMBEDDING_PROVIDER, when set, decides: local | openai | openai-compatible | ollama | none.
 *  2. Else OPENAI_API_KEY present → openai with EMBEDDING_MODEL (default text-embedding-3-small).
 *  3. Else local (local-words-v1-612; EMBEDDING_MODEL=local-hash-v1-<dimension> for the hashed-only
 *     model): the vector path works with no key and no network.
 * openai uses EMBEDDING_API_KEY or OPENAI_API_KEY, and EMBEDDING_BASE_URL or OPENAI_BASE_URL when set.
 * openai-compatible (Ollama, vLLM, TEI...) uses EMBEDDING_BASE_URL, EMBEDDING_MODEL and, if the
 * server wants one, EMBEDDING_API_KEY. ollama is Ollama's OpenAI-compatible endpoint (`/v1/embeddings`) with
 * defaults: EMBEDDING_BASE_URL (with or without `/v1`) else http://localhost:11434, EMBEDDING_MODEL else
 * nomic-embed-text. Impossible combinations throw ConfigValidationError at start.
 */
export function resolveEmbeddingSettings(config: AppConfig): EmbeddingSettings {
  const section = config.embeddings;
  const model = present(section.model);
  const openAiKey = present(section.apiKey) ?? present(config.rawEnv.OPENAI_API_KEY);
  const kind: EmbeddingProviderKind = section.provider ?? (present(config.rawEnv.OPENAI_API_KEY) ? 'openai' : 'local');
  const reason = section.provider ? 'override' : kind === 'openai' ? 'openai_api_key' : 'default';
  const base = {
    kind,
    reason,
    batchSize: section.batchSize,
    localModel: 'words',
    localDimension: LocalHashEmbeddingProvider.DEFAULT_DIMENSION,
  } as const;

  switch (kind) {
    case 'none':
      return { ...base, model: null, baseURL: undefined, apiKey: undefined, ignoredModel: model ?? null };
    case 'local': {
      const hashMatch = model ? LOCAL_HASH_MODEL.exec(model) : null;
      const known = !model || hashMatch !== null || model === LocalWordsEmbeddingProvider.MODEL_NAME;
      return {
        ...base,
        model: null,
        baseURL: undefined,
        apiKey: undefined,
        localModel: hashMatch ? 'hash' : 'words',
        localDimension: hashMatch ? Number(hashMatch[1]) : base.localDimension,
        ignoredModel: known ? null : (model as string),
      };
    }
    case 'openai':
      if (!openAiKey) {
        throw new ConfigValidationError(['EMBEDDING_PROVIDER: "openai" needs OPENAI_API_KEY (or EMBEDDING_API_KEY)']);
      }
      return {
        ...base,
        model: model ?? DEFAULT_OPENAI_EMBEDDING_MODEL,
        baseURL: present(section.baseUrl) ?? present(config.rawEnv.OPENAI_BASE_URL),
        apiKey: openAiKey,
        ignoredModel: null,
      };
    case 'openai-compatible':
      if (!model) {
        throw new ConfigValidationError(['EMBEDDING_MODEL: required when EMBEDDING_PROVIDER=openai-compatible']);
      }
      return {
        ...base,
        model,
        baseURL: present(section.baseUrl),
        apiKey: present(section.apiKey) ?? PLACEHOLDER_API_KEY,
        ignoredModel: null,
      };
    case 'ollama':
      return {
        ...base,
        model: model ?? OLLAMA_DEFAULT_MODEL,
        baseURL: withV1(present(section.baseUrl) ?? OLLAMA_DEFAULT_BASE_URL),
        apiKey: present(section.apiKey) ?? PLACEHOLDER_API_KEY,
        ignoredModel: null,
      };
  }
}

/** Ollama serves its OpenAI-compatible API under /v1 of its address; either form is accepted. */
function withV1(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return /\/v1$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

/** Builds the provider the settings describe; null for `none`. */
function createEmbeddingProvider(
  settings: EmbeddingSettings,
  options: { onUsage?: EmbeddingUsageListener } = {},
): EmbeddingProvider | null {
  switch (settings.kind) {
    case 'none':
      return null;
    case 'local':
      return settings.localModel === 'hash'
        ? new LocalHashEmbeddingProvider({ dimension: settings.localDimension })
        : new LocalWordsEmbeddingProvider();
    case 'openai':
    case 'openai-compatible':
    case 'ollama':
      return new OpenAiEmbeddingProvider({
        model: settings.model as string,
        apiKey: settings.apiKey as string,
        baseURL: settings.baseURL,
        providerName: settings.kind,
        batchSize: settings.batchSize,
        // OpenAI's compact base64 format; plain floats for servers that may not speak base64.
        encodingFormat: settings.kind === 'openai' ? 'base64' : 'float',
        onUsage: options.onUsage,
      });
  }
}

/**
 * Resolves, builds and announces the embedding provider: one `embedding_provider_selected` line
 * (provider, model, dimension, why; the endpoint's origin, never a key). Called once at start.
 */
export function detectEmbeddingProvider(
  config: AppConfig,
  options: { onUsage?: EmbeddingUsageListener; logger?: Logger } = {},
): EmbeddingProvider | null {
  const settings = resolveEmbeddingSettings(config);
  const provider = createEmbeddingProvider(settings, options);
  const logger = options.logger ?? new Logger('embeddings');
  logger.info('embedding_provider_selected', {
    provider: settings.kind,
    model: provider?.modelName ?? null,
    // 0 means "learned from the first response" (a model outside the known table).
    dimension: provider ? provider.dimension || 'learned_on_first_call' : null,
    reason: settings.reason,
    ...(settings.baseURL ? { endpoint: originOf(settings.baseURL) } : {}),
    ...(settings.ignoredModel ? { ignoredModel: settings.ignoredModel } : {}),
  });
  return provider;
}

/** The scheme, host and port only: a base URL may carry credentials in its user-info or query. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid-url';
  }
}

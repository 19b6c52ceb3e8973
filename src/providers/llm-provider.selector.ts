import type { AppConfig } from '../config/app-config';
import { ConfigValidationError } from '../config/config-validation.error';
import {
  baseUrlOverrideVariable,
  OFFLINE_PROVIDER_NAME,
  ProviderRegistry,
  ProviderRegistryEntry,
} from '../config/provider-registry';

/** How the provider was chosen, for the start-up log line. */
export type LlmSelectionSource = 'LLM_PROVIDER' | 'LLM_BASE_URL' | 'detected' | 'default';

export type LlmProviderSelection =
  | { kind: 'offline'; providerName: typeof OFFLINE_PROVIDER_NAME; model: 'offline'; source: LlmSelectionSource }
  | {
      kind: 'remote';
      providerName: string;
      entry: ProviderRegistryEntry;
      baseURL: string;
      /** Undefined for keyless endpoints; never logged. */
      apiKey: string | undefined;
      model: string;
      source: LlmSelectionSource;
      /** The variable that triggered auto-detection (e.g. DEEPSEEK_API_KEY). */
      detectedBy?: string;
    };

/** The generic registry entry that LLM_BASE_URL (without LLM_PROVIDER) selects. */
export const GENERIC_OPENAI_COMPATIBLE = 'openai-compatible';

type Env = AppConfig['rawEnv'];

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function resolve(
  entry: ProviderRegistryEntry,
  registry: ProviderRegistry,
  config: Pick<AppConfig, 'llm' | 'rawEnv'>,
  source: LlmSelectionSource,
  detectedBy?: string,
): LlmProviderSelection {
  const env = config.rawEnv;
  const problems: string[] = [];
  const why =
    source === 'detected'
      ? `detected from ${detectedBy}`
      : source === 'LLM_PROVIDER'
        ? `LLM_PROVIDER=${entry.name}`
        : 'selected by LLM_BASE_URL';
  const baseURL = registry.resolveBaseUrl(entry, env);
  const baseVariables = [baseUrlOverrideVariable(entry.name), entry.baseUrlEnvVar].filter(Boolean).join(' or ');
  if (!baseURL) problems.push(`${baseVariables}: required for provider "${entry.name}" (${why})`);
  else if (!isHttpUrl(baseURL))
    problems.push(`${baseVariables}: "${baseURL}" is not an http(s) URL (provider "${entry.name}")`);
  const apiKey = registry.resolveApiKey(entry, env);
  if (entry.apiKeyEnvVar && !apiKey && !entry.apiKeyOptional) {
    problems.push(`${entry.apiKeyEnvVar}: required for provider "${entry.name}" (${why})`);
  }
  const model = config.llm.model ?? entry.defaultModel;
  if (!model) problems.push(`LLM_MODEL: required for provider "${entry.name}", which has no default model`);
  if (problems.length > 0) throw new ConfigValidationError(problems);
  return {
    kind: 'remote',
    providerName: entry.name,
    entry,
    baseURL: (baseURL as string).replace(/\/+$/, ''),
    apiKey,
    model: model as string,
    source,
    ...(detectedBy ? { detectedBy } : {}),
  };
}

function detectionTrigger(entry: ProviderRegistryEntry, registry: ProviderRegistry, env: Env): string | undefined {
  if (entry.apiKeyEnvVar) return registry.resolveApiKey(entry, env) ? entry.apiKeyEnvVar : undefined;
  // Keyless endpoints (Ollama) are detected by their base URL variable.
  return registry.baseUrlFromEnv(entry, env) ? baseUrlOverrideVariable(entry.name) : undefined;
}

/**
 * Chooses the LLM endpoint once, at start:
 * 1. LLM_PROVIDER names a registry entry (or "offline"); LLM_MODEL overrides the model.
 * 2. Else LLM_BASE_URL alone selects the generic "openai-compatible" entry.
 * 3. Else the first registry entry, by detectionOrder, whose key is set
 *    (DEEPSEEK_API_KEY > OPENAI_API_KEY > ANTHROPIC_API_KEY), or keyless one whose base URL is set (OLLAMA_BASE_URL).
 * 4. Else the offline provider.
 * An unknown LLM_PROVIDER, or a chosen provider without its key / base URL / model, throws
 * ConfigValidationError naming the variable: the service refuses to start rather than fail later.
 */
export function selectLlmProvider(
  config: Pick<AppConfig, 'llm' | 'rawEnv'>,
  registry: ProviderRegistry,
): LlmProviderSelection {
  const requested = config.llm.provider?.trim();
  if (requested) {
    if (requested === OFFLINE_PROVIDER_NAME)
      return { kind: 'offline', providerName: OFFLINE_PROVIDER_NAME, model: 'offline', source: 'LLM_PROVIDER' };
    const entry = registry.get(requested);
    if (!entry) {
      throw new ConfigValidationError([
        `LLM_PROVIDER: unknown provider "${requested}" (known: ${[...registry.names(), OFFLINE_PROVIDER_NAME].join(', ')}; see ${registry.source})`,
      ]);
    }
    return resolve(entry, registry, config, 'LLM_PROVIDER');
  }
  const generic = registry.get(GENERIC_OPENAI_COMPATIBLE);
  if (config.rawEnv.LLM_BASE_URL?.trim() && generic) return resolve(generic, registry, config, 'LLM_BASE_URL');
  for (const entry of registry.detectable()) {
    const trigger = detectionTrigger(entry, registry, config.rawEnv);
    if (trigger) return resolve(entry, registry, config, 'detected', trigger);
  }
  return { kind: 'offline', providerName: OFFLINE_PROVIDER_NAME, model: 'offline', source: 'default' };
}

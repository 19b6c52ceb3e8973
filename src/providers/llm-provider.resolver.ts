import type { LlmProvider } from './llm-provider';

/**
 * The provider a new run of a workspace uses: the configuration it names (an automation's own), else
 * the workspace's active one, else the environment's (LLM_PROVIDER). Resolved once when a run starts,
 * so changing the active configuration never affects a run in progress. Throws AppError
 * provider_not_configured when the configuration cannot be used (named one gone, key that cannot be
 * decrypted).
 */
export interface LlmProviderResolver {
  forRun(workspace: string, configId?: string): Promise<LlmProvider>;
}

export const LLM_PROVIDER_RESOLVER = Symbol('LLM_PROVIDER_RESOLVER');

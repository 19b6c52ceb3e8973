/** Injection token of the LlmProvider chosen at start (detection or LLM_PROVIDER). */
export const LLM_PROVIDER = Symbol('LLM_PROVIDER');

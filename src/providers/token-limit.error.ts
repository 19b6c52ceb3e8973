import type { Locale } from '../config/app-config';
import { AppError } from '../errors/app-error';
import { LLM_ERROR_MESSAGES } from '../errors/llm-error.messages';

export type TokenLimitKind = 'per_call' | 'total_tokens' | 'cost';

/**
 * A token or cost limit (AI_MAX_TOKENS_PER_CALL, AI_MAX_TOTAL_TOKENS, AI_MAX_COST_USD) was reached:
 * `budget_exceeded`, HTTP 402, not retryable.
 */
export class TokenLimitError extends AppError {
  constructor(
    readonly kind: TokenLimitKind,
    readonly limit: number,
    readonly actual: number,
    locale: Locale = 'en',
  ) {
    const text = LLM_ERROR_MESSAGES.budget_exceeded[locale];
    super('budget_exceeded', text, { kind, limit, actual }, { userMessage: text });
    this.name = 'TokenLimitError';
  }
}

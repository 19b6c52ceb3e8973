import { classifyLLMError, ClassifiedLlmError } from './classify-llm-error';
import { LlmErrorLocale } from './llm-error.messages';
import { LlmProviderError } from './llm-provider.error';

/**
 * classifyLLMError bound to the configured locale (AI_LOCALE), as an injectable for the agent and
 * the gateway. Pure: no Nest decorators; ProvidersModule constructs it.
 */
export class LlmErrorClassifier {
  constructor(readonly locale: LlmErrorLocale = 'en') {}

  classify(error: unknown, provider?: string): ClassifiedLlmError {
    return classifyLLMError(error, this.locale, provider);
  }

  /** The classified error as an AppError (LlmProviderError) the filters map to PROTOCOL.md's shape. */
  toAppError(error: unknown, provider?: string): LlmProviderError {
    if (error instanceof LlmProviderError) return error;
    return new LlmProviderError(this.classify(error, provider), error);
  }
}

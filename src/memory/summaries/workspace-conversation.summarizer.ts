import type { Locale } from '../../config/app-config';
import type { LlmProvider } from '../../providers/llm-provider';
import type { LlmProviderResolver } from '../../providers/llm-provider.resolver';
import type { ConversationSummarizer, SummaryRequest, SummaryResult } from './conversation-summary';
import { ExtractiveConversationSummarizer } from './extractive-conversation.summarizer';
import { LlmConversationSummarizer } from './llm-conversation.summarizer';

/**
 * Summaries by the model the thread's workspace talks to: the provider a new run of the workspace would
 * use (its active provider configuration, else the environment's), resolved for each summary; an
 * extractive summary when that provider is the offline one. A configuration that cannot be used
 * (provider_not_configured) fails the update, which is retried like any failed update.
 */
export class WorkspaceConversationSummarizer implements ConversationSummarizer {
  private readonly extractive: ExtractiveConversationSummarizer;
  /** One summarizer per provider instance (the resolver keeps its providers; they are not rebuilt per call). */
  private readonly byProvider = new WeakMap<LlmProvider, ConversationSummarizer>();

  constructor(
    private readonly providers: LlmProviderResolver | null,
    private readonly environmentProvider: LlmProvider,
    private readonly locale: Locale,
  ) {
    this.extractive = new ExtractiveConversationSummarizer(locale);
  }

  async summarize(request: SummaryRequest): Promise<SummaryResult> {
    const provider = this.providers ? await this.providers.forRun(request.workspace) : this.environmentProvider;
    return this.summarizerFor(provider).summarize(request);
  }

  private summarizerFor(provider: LlmProvider): ConversationSummarizer {
    // The offline provider has no model: its summaries are extractive and say so.
    if (provider.offline) return this.extractive;
    let summarizer = this.byProvider.get(provider);
    if (!summarizer) {
      summarizer = new LlmConversationSummarizer(provider, this.locale);
      this.byProvider.set(provider, summarizer);
    }
    return summarizer;
  }
}

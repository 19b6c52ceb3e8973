import type { Locale } from '../../config/app-config';
import type { LlmMessage, LlmToolDefinition } from '../../conversation/llm-message';
import type { LlmProvider } from '../../providers/llm-provider';
import { ConversationSummarizer, SummaryRequest, SummaryResult } from './conversation-summary';
import {
  CONVERSATION_SUMMARY_SCHEMA,
  parseConversationSummary,
  SummaryOutputError,
} from './conversation-summary.schema';
import { RECORD_SUMMARY_TOOL, SUMMARY_PROMPT_TEXTS } from './summary-prompt.texts';

/** Enough for a 200-word summary and its lists, as tool-call JSON. */
const SUMMARY_MAX_TOKENS = 1024;

/**
 * A summary written by the configured model: ONE call through the provider layer (retries, error
 * classification and cancellation included), whose structured output is the arguments of the
 * `record_summary` tool, checked against CONVERSATION_SUMMARY_SCHEMA. A model that answers the JSON
 * as text instead of calling the tool is accepted too; anything else is a SummaryOutputError (the
 * work is retried later).
 */
export class LlmConversationSummarizer implements ConversationSummarizer {
  private readonly tool: LlmToolDefinition;

  constructor(
    private readonly provider: LlmProvider,
    private readonly locale: Locale = 'en',
  ) {
    const texts = SUMMARY_PROMPT_TEXTS[locale] ?? SUMMARY_PROMPT_TEXTS.en;
    this.tool = {
      type: 'function',
      function: {
        name: RECORD_SUMMARY_TOOL,
        description: texts.toolDescription,
        parameters: structuredClone(CONVERSATION_SUMMARY_SCHEMA) as Record<string, unknown>,
      },
    };
  }

  async summarize(request: SummaryRequest): Promise<SummaryResult> {
    const texts = SUMMARY_PROMPT_TEXTS[this.locale] ?? SUMMARY_PROMPT_TEXTS.en;
    const messages: LlmMessage[] = [
      { role: 'system', content: texts.instructions[request.level] },
      {
        role: 'user',
        content: request.sources
          .map((source, index) => `${texts.sourceTitle[request.level](index + 1)}\n${describeSource(source)}`)
          .join('\n\n'),
      },
    ];
    const completion = await this.provider.complete(messages, [this.tool], {
      maxTokens: SUMMARY_MAX_TOKENS,
      temperature: 0,
      signal: request.signal,
    });
    return {
      summary: parseConversationSummary(
        structuredOutputOf(completion.message.tool_calls ?? [], completion.message.content),
      ),
      author: 'llm',
      usage: completion.usage,
      provider: this.provider.providerName,
      model: completion.model || this.provider.model,
    };
  }
}

function describeSource(source: SummaryRequest['sources'][number]): string {
  const lines = [source.text];
  if (source.keyFindings.length > 0) lines.push(`Findings: ${source.keyFindings.join('; ')}`);
  if (source.nodesMentioned.length > 0) lines.push(`Nodes: ${source.nodesMentioned.join(', ')}`);
  return lines.join('\n');
}

/** The arguments of the record_summary call, else JSON written as the answer's text (fenced or not). */
function structuredOutputOf(
  calls: ReadonlyArray<{ function: { name: string; arguments: string } }>,
  content: string | null,
): unknown {
  const call = calls.find((candidate) => candidate.function.name === RECORD_SUMMARY_TOOL);
  const raw = call ? call.function.arguments : jsonInText(content ?? '');
  if (raw === null)
    throw new SummaryOutputError(`The model neither called ${RECORD_SUMMARY_TOOL} nor answered JSON`, []);
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new SummaryOutputError('The summary is not valid JSON', []);
  }
}

function jsonInText(text: string): string | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  return start === -1 || end <= start ? null : text.slice(start, end + 1);
}

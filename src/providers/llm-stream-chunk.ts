import { LlmUsage } from './llm-usage';

/**
 * What LlmProvider.stream() yields. Order: tokens and tool_call_start interleaved as they
 * arrive, then every tool_call_done (full arguments), then usage (when the provider sent it),
 * then exactly one done.
 */
export type LlmStreamChunk =
  | { type: 'token'; token: string }
  | { type: 'tool_call_start'; toolCall: { index: number; id: string; name: string } }
  | { type: 'tool_call_done'; toolCall: { index: number; id: string; name: string; arguments: string } }
  | { type: 'usage'; usage: LlmUsage }
  | { type: 'done'; finishReason: string | null };

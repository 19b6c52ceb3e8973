import type { LlmStreamChunk } from '../../src/providers/llm-stream-chunk';
import type { LlmUsage } from '../../src/providers/llm-usage';

export interface CollectedLlmStream {
  chunks: LlmStreamChunk[];
  /** Concatenation of the token chunks. */
  text: string;
  tokenCount: number;
  toolCallStarts: Array<{ index: number; id: string; name: string }>;
  /** From tool_call_done, in emission order. */
  toolCalls: Array<{ index: number; id: string; name: string; arguments: string }>;
  usage: LlmUsage | null;
  /** null when no done chunk arrived. */
  finishReason: string | null | undefined;
}

/** Drains an LlmProvider stream into what tests assert on. Throws what the stream throws. */
export async function collectLlmStream(stream: AsyncIterable<LlmStreamChunk>): Promise<CollectedLlmStream> {
  const result: CollectedLlmStream = {
    chunks: [],
    text: '',
    tokenCount: 0,
    toolCallStarts: [],
    toolCalls: [],
    usage: null,
    finishReason: undefined,
  };
  for await (const chunk of stream) {
    result.chunks.push(chunk);
    if (chunk.type === 'token') {
      result.text += chunk.token;
      result.tokenCount++;
    } else if (chunk.type === 'tool_call_start') result.toolCallStarts.push(chunk.toolCall);
    else if (chunk.type === 'tool_call_done') result.toolCalls.push(chunk.toolCall);
    else if (chunk.type === 'usage') result.usage = chunk.usage;
    else if (chunk.type === 'done') result.finishReason = chunk.finishReason;
  }
  return result;
}

import { RecordedRequest, ScriptedToolCall, ScriptedTurn, ScriptedUsage } from './scripted-turn';

/** A tool call with its final id, JSON text and wire fragments. */
export interface ResolvedToolCall {
  id: string;
  name: string;
  arguments: string;
  fragments: string[];
}

export function sse(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`;
}

export const SSE_COMMENT = ': keep-alive\n\n';

/** Pieces of `size` characters (at least one piece, possibly empty). */
export function slices(text: string, size: number): string[] {
  const step = Math.max(1, Math.floor(size));
  const out: string[] = [];
  for (let offset = 0; offset < text.length; offset += step) out.push(text.slice(offset, offset + step));
  return out;
}

function splitFragments(text: string, fragments: ScriptedToolCall['fragments']): string[] {
  if (Array.isArray(fragments)) return fragments;
  const count = Math.max(1, Math.min(fragments ?? 3, text.length || 1));
  const size = Math.ceil(text.length / count);
  return text === '' ? [''] : slices(text, size);
}

export function resolveToolCalls(
  turn: ScriptedTurn,
  turnNumber: number,
  idPrefix: 'call' | 'toolu',
): ResolvedToolCall[] {
  return (turn.toolCalls ?? []).map((call, index) => {
    const args = Array.isArray(call.fragments)
      ? call.fragments.join('')
      : typeof call.arguments === 'string'
        ? call.arguments
        : JSON.stringify(call.arguments ?? {});
    return {
      id: call.id ?? `${idPrefix}_scripted_${turnNumber}_${index}`,
      name: call.name,
      arguments: args,
      fragments: splitFragments(args, call.fragments),
    };
  });
}

/** The turn's usage, or a plausible one derived from the sizes of the request and the answer. */
export function resolveUsage(
  turn: ScriptedTurn,
  request: RecordedRequest,
  calls: ResolvedToolCall[],
): Required<ScriptedUsage> & { cacheWrite: number } {
  if (turn.usage) return { cached: 0, cacheWrite: 0, ...turn.usage };
  const answerChars =
    (turn.text ?? '').length + calls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0);
  const completion = Math.max(1, Math.ceil(answerChars / 4));
  // With the prompt cache on, the prompt as the provider counts it (ScriptedLlmServerOptions.promptCache).
  if (request.prompt && request.promptCacheReported) {
    return {
      prompt: request.prompt.tokens,
      completion,
      cached: request.prompt.cachedTokens,
      cacheWrite: request.prompt.cacheWriteTokens,
    };
  }
  const requestChars = JSON.stringify(request.body?.messages ?? request.body ?? '').length;
  return { prompt: Math.max(1, Math.ceil(requestChars / 4)), completion, cached: 0, cacheWrite: 0 };
}

export function modelOf(turn: ScriptedTurn, request: RecordedRequest): string {
  return turn.model ?? (typeof request.body?.model === 'string' ? request.body.model : 'scripted-model');
}

import { RecordedRequest, ScriptedError, ScriptedTurn } from './scripted-turn';
import { modelOf, resolveToolCalls, resolveUsage, slices, sse, SSE_COMMENT } from './turn-content';

const DEFAULT_ERRORS: Record<number, { type: string; message: string }> = {
  400: { type: 'invalid_request_error', message: 'Invalid request.' },
  401: { type: 'authentication_error', message: 'invalid x-api-key' },
  403: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' },
  404: { type: 'not_found_error', message: 'The requested resource could not be found.' },
  413: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
  429: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit.' },
  500: { type: 'api_error', message: 'Internal server error' },
  529: { type: 'overloaded_error', message: 'Overloaded' },
};

/**
 * A request the real Messages API refuses with 400 before generating anything, or null. Checked:
 * tool_use / tool_result blocks in the messages of a request that defines no tools.
 */
export function anthropicRequestRefusal(body: any): ScriptedError | null {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const hasToolBlocks = messages.some(
    (message) =>
      Array.isArray(message?.content) &&
      message.content.some((block: any) => block?.type === 'tool_use' || block?.type === 'tool_result'),
  );
  if (hasToolBlocks && !(Array.isArray(body?.tools) && body.tools.length > 0)) {
    return {
      status: 400,
      type: 'invalid_request_error',
      message: 'Requests which include `tool_use` or `tool_result` blocks must define tools.',
    };
  }
  return null;
}

/** Anthropic's error body: `{ type: "error", error: { type, message } }`. */
export function anthropicErrorBody(error: ScriptedError): unknown {
  if (error.body !== undefined) return error.body;
  const fallback = DEFAULT_ERRORS[error.status] ?? DEFAULT_ERRORS[error.status >= 500 ? 500 : 400];
  return { type: 'error', error: { type: error.type ?? fallback.type, message: error.message ?? fallback.message } };
}

function parseInput(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return {};
  }
}

/** The SSE events of a Messages stream for this turn (message_start … message_stop). */
export function renderAnthropicStream(turn: ScriptedTurn, request: RecordedRequest, turnNumber: number): string[] {
  const calls = resolveToolCalls(turn, turnNumber, 'toolu');
  const usage = resolveUsage(turn, request, calls);
  const reported = turn.usage !== null;
  const events: string[] = [
    sse(
      {
        type: 'message_start',
        message: {
          id: `msg_scripted_${turnNumber}`,
          type: 'message',
          role: 'assistant',
          model: modelOf(turn, request),
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: reported ? usage.prompt - usage.cached - usage.cacheWrite : 0,
            cache_creation_input_tokens: reported ? usage.cacheWrite : 0,
            cache_read_input_tokens: reported ? usage.cached : 0,
            output_tokens: 1,
          },
        },
      },
      'message_start',
    ),
    sse({ type: 'ping' }, 'ping'),
  ];
  let index = 0;
  if (turn.text) {
    events.push(
      sse({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, 'content_block_start'),
    );
    for (const piece of slices(turn.text, turn.chunkSize ?? 4)) {
      events.push(
        sse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }, 'content_block_delta'),
      );
    }
    events.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
    index++;
  }
  for (const call of calls) {
    events.push(
      sse(
        {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
        },
        'content_block_start',
      ),
    );
    // Anthropic's first input_json_delta is an empty string.
    for (const fragment of ['', ...call.fragments]) {
      events.push(
        sse(
          { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: fragment } },
          'content_block_delta',
        ),
      );
    }
    events.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
    index++;
  }
  if (turn.streamError) {
    const { type = 'overloaded_error', message = 'Overloaded' } = turn.streamError;
    events.push(sse({ type: 'error', error: { type, message } }, 'error'));
  } else {
    events.push(
      sse(
        {
          type: 'message_delta',
          delta: {
            stop_reason: turn.finishReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn'),
            stop_sequence: null,
          },
          usage: { output_tokens: reported ? usage.completion : 0 },
        },
        'message_delta',
      ),
      sse({ type: 'message_stop' }, 'message_stop'),
    );
  }
  return turn.comments
    ? events.flatMap((event, position) => (position === 0 ? [event] : [SSE_COMMENT, event]))
    : events;
}

/** A non-streaming Messages answer for this turn. */
export function renderAnthropicJson(turn: ScriptedTurn, request: RecordedRequest, turnNumber: number): unknown {
  const calls = resolveToolCalls(turn, turnNumber, 'toolu');
  const usage = resolveUsage(turn, request, calls);
  const content: unknown[] = [];
  if (turn.text) content.push({ type: 'text', text: turn.text });
  for (const call of calls)
    content.push({ type: 'tool_use', id: call.id, name: call.name, input: parseInput(call.arguments) });
  return {
    id: `msg_scripted_${turnNumber}`,
    type: 'message',
    role: 'assistant',
    model: modelOf(turn, request),
    content,
    stop_reason: turn.finishReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage:
      turn.usage === null
        ? { input_tokens: 0, output_tokens: 0 }
        : {
            input_tokens: usage.prompt - usage.cached - usage.cacheWrite,
            cache_creation_input_tokens: usage.cacheWrite,
            cache_read_input_tokens: usage.cached,
            output_tokens: usage.completion,
          },
  };
}

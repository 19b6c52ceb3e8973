import { RecordedRequest, ScriptedError, ScriptedTurn } from './scripted-turn';
import { modelOf, resolveToolCalls, resolveUsage, slices, sse, SSE_COMMENT } from './turn-content';

const DEFAULT_ERRORS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid request.' },
  401: {
    type: 'invalid_request_error',
    code: 'invalid_api_key',
    message:
      'Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.',
  },
  403: {
    type: 'invalid_request_error',
    code: 'unsupported_country_region_territory',
    message: 'Country, region, or territory not supported',
  },
  404: {
    type: 'invalid_request_error',
    code: 'model_not_found',
    message: 'The model `scripted` does not exist or you do not have access to it.',
  },
  429: {
    type: 'requests',
    code: 'rate_limit_exceeded',
    message: 'Rate limit reached for requests. Please try again in 1s.',
  },
  500: {
    type: 'server_error',
    code: null,
    message: 'The server had an error while processing your request. Sorry about that!',
  },
  503: { type: 'server_error', code: null, message: 'The server is overloaded or not ready yet.' },
};

/** OpenAI's error body: `{ error: { message, type, param, code } }`. */
export function openAiErrorBody(error: ScriptedError): unknown {
  if (error.body !== undefined) return error.body;
  const fallback = DEFAULT_ERRORS[error.status] ?? DEFAULT_ERRORS[error.status >= 500 ? 500 : 400];
  return {
    error: {
      message: error.message ?? fallback.message,
      type: error.type ?? fallback.type,
      param: null,
      code: error.code ?? fallback.code,
    },
  };
}

/** The SSE events of a chat.completion stream for this turn (each string is one event). */
export function renderOpenAiStream(turn: ScriptedTurn, request: RecordedRequest, turnNumber: number): string[] {
  const id = `chatcmpl-scripted-${turnNumber}`;
  const model = modelOf(turn, request);
  const created = Math.floor(Date.now() / 1000);
  const chunk = (
    delta: Record<string, unknown>,
    finishReason: string | null = null,
    extra: Record<string, unknown> = {},
  ) =>
    sse({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...extra,
    });
  const calls = resolveToolCalls(turn, turnNumber, 'call');
  const events: string[] = [chunk({ role: 'assistant', content: '' })];

  for (const piece of turn.reasoning ? slices(turn.reasoning, turn.chunkSize ?? 4) : []) {
    events.push(chunk({ content: null, reasoning_content: piece }));
  }
  for (const piece of turn.text ? slices(turn.text, turn.chunkSize ?? 4) : []) events.push(chunk({ content: piece }));

  const callDelta = (index: number, body: Record<string, unknown>) => chunk({ tool_calls: [{ index, ...body }] });
  const opening = (index: number) => {
    const call = calls[index];
    const head: Record<string, unknown> = { type: 'function', function: { name: call.name, arguments: '' } };
    if (!turn.omitToolCallIds) head.id = call.id;
    return callDelta(index, head);
  };
  if (turn.interleaveToolCalls) {
    calls.forEach((_, index) => events.push(opening(index)));
    const longest = Math.max(0, ...calls.map((call) => call.fragments.length));
    for (let step = 0; step < longest; step++) {
      calls.forEach((call, index) => {
        if (step < call.fragments.length)
          events.push(callDelta(index, { function: { arguments: call.fragments[step] } }));
      });
    }
  } else {
    calls.forEach((call, index) => {
      events.push(opening(index));
      for (const fragment of call.fragments) events.push(callDelta(index, { function: { arguments: fragment } }));
    });
  }

  if (turn.streamError) {
    const { type = 'server_error', code = null, message = 'The stream failed.', status } = turn.streamError;
    events.push(
      sse({ error: { message, type, code, ...(status !== undefined ? { status_code: status } : {}) } }, 'error'),
    );
    return turn.comments ? withComments(events) : events;
  }

  const finishReason = turn.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
  const wantsUsage =
    turn.usage === null ? false : turn.usage !== undefined || request.body?.stream_options?.include_usage === true;
  const usage = resolveUsage(turn, request, calls);
  const wireUsage = {
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion,
    total_tokens: usage.prompt + usage.completion,
    prompt_tokens_details: { cached_tokens: usage.cached },
  };
  if (wantsUsage && turn.usagePlacement === 'finish-chunk') {
    events.push(chunk({}, finishReason, { usage: wireUsage }));
  } else {
    events.push(chunk({}, finishReason));
    if (wantsUsage)
      events.push(sse({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: wireUsage }));
  }
  events.push('data: [DONE]\n\n');
  return turn.comments ? withComments(events) : events;
}

function withComments(events: string[]): string[] {
  return events.flatMap((event, index) => (index === 0 ? [event] : [SSE_COMMENT, event]));
}

/** A non-streaming chat.completion for this turn. */
export function renderOpenAiJson(turn: ScriptedTurn, request: RecordedRequest, turnNumber: number): unknown {
  const calls = resolveToolCalls(turn, turnNumber, 'call');
  const usage = resolveUsage(turn, request, calls);
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: turn.text ?? (calls.length > 0 ? null : ''),
    refusal: null,
  };
  if (calls.length > 0) {
    message.tool_calls = calls.map((call) => ({
      ...(turn.omitToolCallIds ? {} : { id: call.id }),
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: `chatcmpl-scripted-${turnNumber}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: modelOf(turn, request),
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: turn.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    ...(turn.usage === null
      ? {}
      : {
          usage: {
            prompt_tokens: usage.prompt,
            completion_tokens: usage.completion,
            total_tokens: usage.prompt + usage.completion,
            prompt_tokens_details: { cached_tokens: usage.cached },
          },
        }),
  };
}

import { throwIfAborted } from './llm-abort.error';
import { LlmStreamChunk } from './llm-stream-chunk';
import { MalformedStreamError } from './malformed-stream.error';
import { UpstreamStreamGuard } from './upstream-stream.guard';

/** Turns one vendor's stream events into our chunks (OpenAiStreamAssembler, AnthropicStreamAssembler). */
export interface UpstreamStreamAssembler<TEvent> {
  /** Appends the chunks `event` completes to `out`. */
  push(event: TEvent, out: LlmStreamChunk[]): void;
  /** Appends the closing chunks (usage, done) to `out`, or throws when the stream was cut short. */
  finish(out: LlmStreamChunk[]): void;
}

export interface UpstreamStreamRequest<TEvent> {
  /** Provider name, for StreamIdleTimeoutError. */
  provider: string;
  signal: AbortSignal | undefined;
  idleTimeoutMs: number;
  assembler: UpstreamStreamAssembler<TEvent>;
  /** Sends the SDK's streaming request with the guard's signal. */
  open(signal: AbortSignal): Promise<AsyncIterable<TEvent>>;
}

/**
 * The streaming half of every SDK-backed LlmProvider: the request runs under an UpstreamStreamGuard
 * (the caller's abort and the idle timer cancel it), each upstream event is assembled into chunks as
 * it arrives, and a stream the SDK ended quietly because it was cut says why.
 */
export async function* relayUpstreamStream<TEvent>(
  request: UpstreamStreamRequest<TEvent>,
): AsyncGenerator<LlmStreamChunk> {
  throwIfAborted(request.signal);
  const guard = new UpstreamStreamGuard(request.provider, request.signal, request.idleTimeoutMs);
  const { assembler } = request;
  const out: LlmStreamChunk[] = [];
  try {
    const upstream = await request.open(guard.signal);
    for await (const event of upstream) {
      guard.touch();
      assembler.push(event, out);
      if (out.length === 0) continue;
      guard.hold(true);
      for (const item of out) yield item;
      guard.hold(false);
      out.length = 0;
    }
  } catch (error) {
    // The SDKs parse each SSE event's data with JSON.parse (the assemblers parse nothing): a SyntaxError is the upstream's garbage.
    throw guard.failure(
      error instanceof SyntaxError ? new MalformedStreamError(request.provider, { cause: error }) : error,
    );
  } finally {
    guard.dispose();
  }
  // The SDKs end the iteration quietly when their request is aborted: say why.
  guard.throwIfCut();
  assembler.finish(out);
  yield* out;
}

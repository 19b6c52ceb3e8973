import {
  Attributes,
  Context,
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  Link,
  ROOT_CONTEXT,
  Span,
  SpanKind,
  SpanStatusCode,
  trace,
  Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_OPERATION_NAME,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from '@opentelemetry/semantic-conventions/incubating';

/** The agent's name in its `invoke_agent` spans (gen_ai.agent.name). */
export const AGENT_NAME = 'graph-ai-assistant';

/** What a traced step may add to its span once it knows more (usage, finish reasons, the thread). */
export interface TraceSpan {
  set(attributes: Attributes): void;
  /** The step failed in a way that is not thrown (a refused tool call): error.type and an error status. */
  fail(errorType: string): void;
}

const UNTRACED: TraceSpan = { set: () => undefined, fail: () => undefined };

const W3C = new W3CTraceContextPropagator();

/** Request headers (HTTP, or a Socket.IO handshake's): where a caller's `traceparent` comes from. */
export type TraceCarrier = Record<string, string | string[] | undefined>;

/** A span's context as the W3C Trace Context headers, to hand it to another instance (through Redis). */
export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

/**
 * The service's spans, after the OpenTelemetry GenAI semantic conventions: `invoke_agent` per run, `chat` per upstream
 * call, `execute_tool` per tool call, and internal spans for the retrieval, the memory recall and the commits. Each
 * span is the active one while its step runs (AsyncLocalStorage), so the steps inside it are its children. Without a
 * tracer (OTEL_EXPORTER_OTLP_ENDPOINT unset) every method just runs its step: nothing is built, nothing recorded.
 *
 * Message contents (prompts, answers, tool arguments and results) are recorded only with `captureContent`: callers
 * check it before building them.
 */
export class GenAiTracer {
  static readonly disabled = new GenAiTracer(null, false);

  constructor(
    private readonly tracer: Tracer | null,
    readonly captureContent: boolean,
  ) {}

  get enabled(): boolean {
    return this.tracer !== null;
  }

  /**
   * Runs `step` as part of the caller's trace when its headers carry a W3C `traceparent` (and `tracestate`): the
   * spans it starts are children of the caller's span. A malformed `traceparent` is ignored (a trace of its own).
   */
  withRemoteParent<T>(headers: TraceCarrier, step: () => T): T {
    if (!this.tracer || headers.traceparent === undefined) return step();
    return context.with(W3C.extract(ROOT_CONTEXT, headers, defaultTextMapGetter), step);
  }

  /**
   * The active span's context (a run's `invoke_agent`), injected by the W3C propagator, for another instance to
   * continue the run's trace; undefined without tracing or outside a span, so nothing is carried then.
   */
  activeContext(): TraceContext | undefined {
    if (!this.tracer) return undefined;
    const carrier: Partial<TraceContext> = {};
    W3C.inject(context.active(), carrier, defaultTextMapSetter);
    return carrier.traceparent === undefined ? undefined : (carrier as TraceContext);
  }

  /**
   * Runs `step` in the trace of a run started elsewhere (`carried`, from activeContext on the instance that runs it):
   * the spans it starts are children of that run's span. A caller whose own headers carry a `traceparent` keeps its
   * trace instead (withRemoteParent). Without a carried context, withRemoteParent alone.
   */
  withCarriedParent<T>(headers: TraceCarrier, carried: TraceContext | undefined, step: () => T): T {
    if (!this.tracer || carried === undefined || headers.traceparent !== undefined)
      return this.withRemoteParent(headers, step);
    return context.with(W3C.extract(ROOT_CONTEXT, carried, defaultTextMapGetter), step);
  }

  /**
   * A client following, on this instance, a run that another may be running (`ai:rejoin`): a span in the run's trace
   * (withCarriedParent), linked to the run's span when the caller's own trace is its parent instead.
   */
  rejoin<T>(
    headers: TraceCarrier,
    carried: TraceContext | undefined,
    attributes: Attributes,
    step: (span: TraceSpan) => Promise<T>,
  ): Promise<T> {
    if (!this.tracer) return step(UNTRACED);
    return this.withCarriedParent(headers, carried, () => {
      const run = carried && trace.getSpanContext(W3C.extract(ROOT_CONTEXT, carried, defaultTextMapGetter));
      const links: Link[] =
        run && run.traceId !== trace.getActiveSpan()?.spanContext().traceId ? [{ context: run }] : [];
      return this.span('rejoin run', SpanKind.SERVER, attributes, step, undefined, links);
    });
  }

  /** One run of the agent (a chat, a resume, an automation run); `parent`: a remote caller's trace context. */
  invokeAgent<T>(attributes: Attributes, step: (span: TraceSpan) => Promise<T>, parent?: Context): Promise<T> {
    return this.span(
      `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${AGENT_NAME}`,
      SpanKind.INTERNAL,
      {
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
        [ATTR_GEN_AI_AGENT_NAME]: AGENT_NAME,
        ...attributes,
      },
      step,
      parent,
    );
  }

  /** One upstream call to the model (a client span: the model is another service). */
  chat<T>(model: string, attributes: Attributes, step: (span: TraceSpan) => Promise<T>): Promise<T> {
    return this.span(
      `${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${model}`,
      SpanKind.CLIENT,
      { [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT, ...attributes },
      step,
    );
  }

  /** One tool call the model made, run by the service. */
  executeTool<T>(toolName: string, attributes: Attributes, step: (span: TraceSpan) => Promise<T>): Promise<T> {
    return this.span(
      `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${toolName}`,
      SpanKind.INTERNAL,
      { [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL, ...attributes },
      step,
    );
  }

  /** Any other step of a run (retrieval, memory recall, a commit). */
  step<T>(name: string, attributes: Attributes, step: (span: TraceSpan) => Promise<T>): Promise<T> {
    return this.span(name, SpanKind.INTERNAL, attributes, step);
  }

  private async span<T>(
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    step: (span: TraceSpan) => Promise<T>,
    parent?: Context,
    links: Link[] = [],
  ): Promise<T> {
    if (!this.tracer) return step(UNTRACED);
    return this.tracer.startActiveSpan(name, { kind, attributes, links }, parent ?? context.active(), async (span) => {
      try {
        return await step(traceSpanOf(span));
      } catch (error) {
        span.setAttribute(ATTR_ERROR_TYPE, errorTypeOf(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : undefined });
        throw error;
      } finally {
        span.end();
      }
    });
  }
}

function traceSpanOf(span: Span): TraceSpan {
  return {
    set: (attributes) => span.setAttributes(attributes),
    fail: (errorType) => {
      span.setAttribute(ATTR_ERROR_TYPE, errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
    },
  };
}

/** The error's code (an AppError's: `rate_limit`, `timeout`...), else its class name (error.type). */
function errorTypeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.length > 0) return code;
  return error instanceof Error ? error.name : '_OTHER';
}

/** The active span's trace, for a log line or a reply header; undefined when nothing is traced. */
export function activeTraceId(): string | undefined {
  return trace.getActiveSpan()?.spanContext().traceId;
}

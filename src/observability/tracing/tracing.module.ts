import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { GenAiTracer } from './gen-ai.tracer';

export interface TracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL (traces go to `<it>/v1/traces`); null: no tracing. */
  otlpEndpoint: string | null;
  /** OTEL_SERVICE_NAME. */
  serviceName: string;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: messages and tool payloads recorded in the spans. */
  captureMessageContent: boolean;
  /** Spans go here instead, each as it ends (tests: an in-memory exporter), even without an endpoint. */
  exporter?: SpanExporter;
}

const TRACER_PROVIDER = Symbol('TRACER_PROVIDER');

let contextManagerSet = false;

/**
 * Every span needs the active one of its async call chain as parent: one AsyncLocalStorage context manager for the
 * process, set the first time tracing is on (OpenTelemetry's context API is global by design).
 */
function ensureContextManager(): void {
  if (contextManagerSet) return;
  contextManagerSet = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

/**
 * OpenTelemetry traces (GenAiTracer, global: any module's run step may be traced). The SDK's own tracer provider per
 * application, never registered as the global one, so two applications in one process keep their spans apart; it
 * batches spans to the OTLP/HTTP exporter and flushes them when the application closes.
 */
@Global()
@Module({})
export class TracingModule implements OnApplicationShutdown {
  constructor(@Inject(TRACER_PROVIDER) private readonly provider: BasicTracerProvider | null) {}

  static forRoot(options: TracingOptions): DynamicModule {
    const provider = createProvider(options);
    return {
      module: TracingModule,
      providers: [
        { provide: TRACER_PROVIDER, useValue: provider },
        {
          provide: GenAiTracer,
          useValue: provider
            ? new GenAiTracer(provider.getTracer(options.serviceName), options.captureMessageContent)
            : GenAiTracer.disabled,
        },
      ],
      exports: [GenAiTracer],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.provider?.shutdown();
  }
}

function createProvider(options: TracingOptions): BasicTracerProvider | null {
  if (!options.exporter && !options.otlpEndpoint) return null;
  ensureContextManager();
  const processor = options.exporter
    ? new SimpleSpanProcessor(options.exporter)
    : new BatchSpanProcessor(new OTLPTraceExporter({ url: `${options.otlpEndpoint!.replace(/\/+$/, '')}/v1/traces` }));
  return new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }),
    spanProcessors: [processor],
  });
}

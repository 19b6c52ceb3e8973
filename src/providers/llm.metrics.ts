import { Counter, Histogram, Registry } from 'prom-client';
import type { LlmCallLabels, LlmCallObserver, LlmCallOutcome } from './llm-call.observer';

/** Seconds to the first streamed chunk: fast models answer in a few hundred ms, retries push it to tens of seconds. */
const FIRST_CHUNK_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60];
/** Seconds for a whole call, up to long tool-call answers of slow models. */
const CALL_BUCKETS = [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];

/** Upstream LLM calls: latency to the first chunk and in total, and upstream errors by protocol error code. */
export class LlmMetrics implements LlmCallObserver {
  private readonly firstChunkSeconds: Histogram<'provider' | 'model'>;
  private readonly callSeconds: Histogram<'provider' | 'model' | 'outcome'>;
  private readonly errors: Counter<'provider' | 'model' | 'code' | 'retried'>;

  constructor(registry: Registry) {
    this.firstChunkSeconds = new Histogram({
      name: 'graph_ai_llm_time_to_first_token_seconds',
      help: 'Time from the start of a streamed LLM call (retries and their waits included) to its first chunk, by provider and model.',
      labelNames: ['provider', 'model'],
      buckets: FIRST_CHUNK_BUCKETS,
      registers: [registry],
    });
    this.callSeconds = new Histogram({
      name: 'graph_ai_llm_request_duration_seconds',
      help: 'Total time of an LLM call (retries included), by provider, model and outcome (ok, error, aborted).',
      labelNames: ['provider', 'model', 'outcome'],
      buckets: CALL_BUCKETS,
      registers: [registry],
    });
    this.errors = new Counter({
      name: 'graph_ai_llm_upstream_errors_total',
      help: 'Upstream LLM failures by provider, model, error code (docs/protocol.md §4) and whether another attempt followed (retried="true").',
      labelNames: ['provider', 'model', 'code', 'retried'],
      registers: [registry],
    });
  }

  firstChunk(call: LlmCallLabels, seconds: number): void {
    this.firstChunkSeconds.observe({ provider: call.provider, model: call.model }, seconds);
  }

  ended(call: LlmCallLabels, outcome: LlmCallOutcome, seconds: number): void {
    this.callSeconds.observe({ provider: call.provider, model: call.model, outcome }, seconds);
  }

  upstreamError(call: LlmCallLabels, code: string, retried: boolean): void {
    this.errors.inc({ provider: call.provider, model: call.model, code, retried: String(retried) });
  }
}

import { Registry } from 'prom-client';
import { HttpMetrics } from './metrics/http.metrics';
import { processMetricsRegistry } from './metrics/process-metrics.registry';

/**
 * The Prometheus registry of one application. Each app owns its registry,
 * never prom-client's global one, so two apps in one process (tests) never share a counter; the
 * process metrics come from the one per-process registry. Each module registers the metrics of
 * what it measures on `registry` (providers/llm.metrics.ts, rag/retrieval.metrics.ts, ...) and hands
 * them to its pure classes as observers (no prom-client there); only the HTTP requests, counted
 * before any module sees them, are recorded here.
 */
export class MetricsService {
  readonly registry = new Registry();
  readonly http = new HttpMetrics(this.registry);
  private readonly processRegistry = processMetricsRegistry();

  /** `text/plain; version=0.0.4; charset=utf-8` */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text: process metrics, then this app's. */
  async scrape(): Promise<string> {
    const [processText, appText] = await Promise.all([this.processRegistry.metrics(), this.registry.metrics()]);
    return `${processText}\n${appText}`;
  }
}

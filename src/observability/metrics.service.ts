import { Registry } from 'prom-client';
import { ActiveGenerationsMetrics } from './metrics/active-generations.metrics';
import { HitlMetrics } from './metrics/hitl.metrics';
import { HttpMetrics } from './metrics/http.metrics';
import { processMetricsRegistry } from './metrics/process-metrics.registry';
import { SocketMetrics } from './metrics/socket.metrics';

/**
 * The Prometheus metrics of one application (docs/observability.md). Each app owns its registry,
 * never prom-client's global one, so two apps in one process (tests) never share a counter; the
 * process metrics come from the one per-process registry. Modules record through the typed
 * recorders below, handed to pure classes as their observer/callback (no prom-client there).
 */
export class MetricsService {
  readonly registry = new Registry();
  readonly http = new HttpMetrics(this.registry);
  readonly socket = new SocketMetrics(this.registry);
  readonly activeGenerations = new ActiveGenerationsMetrics(this.registry);
  readonly hitl = new HitlMetrics(this.registry);
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

import { collectDefaultMetrics, Registry } from 'prom-client';

/** Prefix of every metric of the service, including prom-client's process and Node.js metrics. */
export const METRICS_PREFIX = 'graph_ai_';

let shared: Registry | null = null;

/**
 * prom-client's default metrics (CPU, memory, handles, event-loop lag, GC), in a registry of their
 * own created once per process: they describe the process, not one app, and their collectors
 * (GC observer, event-loop monitor) cannot be removed, so one set per app would pile up in a
 * process that boots several apps (tests). Not prom-client's global default registry either.
 */
export function processMetricsRegistry(): Registry {
  if (!shared) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared, prefix: METRICS_PREFIX });
  }
  return shared;
}

import { Counter, Histogram, Registry } from 'prom-client';

/** The route label of a request no route handled: unknown path (404), or refused before routing (body too large, malformed JSON). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Status code recorded when the client closed the connection before the answer was sent (nginx's convention). */
export const CLIENT_CLOSED_REQUEST = 499;

const KNOWN_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Seconds; from a health check (~1 ms) to a long agent run over REST (tool rounds, a slow model). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export interface HttpRequestObservation {
  method: string;
  /** The matched route template (`/api/ai/thread/:threadId`), never the raw URL; null when no route matched. */
  route: string | null;
  statusCode: number;
  seconds: number;
}

/**
 * HTTP requests by method, route template and outcome. Labels stay bounded: templates come from the
 * code, unknown methods become OTHER, unmatched paths share one label.
 */
export class HttpMetrics {
  private readonly requests: Counter<'method' | 'route' | 'status_code' | 'status_class'>;
  private readonly duration: Histogram<'method' | 'route' | 'status_class'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'graph_ai_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status code (499: the client went away first).',
      labelNames: ['method', 'route', 'status_code', 'status_class'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'graph_ai_http_request_duration_seconds',
      help: 'Time from the request to the end of its answer, by method, route template and status class.',
      labelNames: ['method', 'route', 'status_class'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
  }

  record(observation: HttpRequestObservation): void {
    const method = KNOWN_METHODS.has(observation.method) ? observation.method : 'OTHER';
    const route = observation.route ?? UNMATCHED_ROUTE;
    const statusClass = `${Math.floor(observation.statusCode / 100)}xx`;
    this.requests.inc({ method, route, status_code: String(observation.statusCode), status_class: statusClass });
    this.duration.observe({ method, route, status_class: statusClass }, observation.seconds);
  }
}

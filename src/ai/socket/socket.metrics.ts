import { Counter, Registry } from 'prom-client';
import type { ErrorCode } from '../../errors/error-code';

/** The client → server events of namespace `/ai`. */
export type SocketEventName = 'ai:chat' | 'ai:resume' | 'ai:interrupt' | 'ai:rejoin' | 'ai:undo' | 'ai:restore';

/**
 * How a socket request ended: `ok` (ai:complete, or an interrupt that stopped a run), `aborted`
 * (ai:complete with aborted: true), `ignored` (an interrupt for a request that was not running),
 * or thecode of its ai:error.
 */
export type SocketEventOutcome = 'ok' | 'aborted' | 'ignored' | ErrorCode;

/** Socket.IO requests by event and outcome, counted when their outcome is known. */
export class SocketMetrics {
  private readonly events: Counter<'event' | 'outcome'>;

  constructor(registry: Registry) {
    this.events = new Counter({
      name: 'graph_ai_socket_events_total',
      help: 'Socket.IO requests on namespace /ai by event and outcome (ok, aborted, ignored, or the ai:error code).',
      labelNames: ['event', 'outcome'],
      registers: [registry],
    });
  }

  event(event: SocketEventName, outcome: SocketEventOutcome): void {
    this.events.inc({ event, outcome });
  }
}

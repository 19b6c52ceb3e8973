import { Logger } from '../../observability/logger';
import { TurnPacedQueue } from '../runs/turn-paced.queue';

/** Messages handled per turn of the event loop; handling one (its DTO's validation, its run's start) is ~0.1-0.4 ms. */
export const SOCKET_MESSAGES_PER_TURN = 8;

const logger = new Logger('gateway');

/**
 * The gateway's incoming requests (ai:chat, ai:resume, ai:interrupt of every socket), handled in arrival order, at
 * most `perTurn` per turn of the event loop, never dropped: otherwise a burst decoded in one poll phase runs every
 * validation back to back before any timer or write. A socket's messages keep their order (an ai:interrupt finds
 * the ai:chat it follows running).
 */
export class SocketMessageInbox {
  private readonly queue: TurnPacedQueue;

  /** `perTurn` must be a positive integer (a RangeError otherwise, from TurnPacedQueue). */
  constructor(perTurn = SOCKET_MESSAGES_PER_TURN) {
    this.queue = new TurnPacedQueue(perTurn, (error) =>
      logger.error('socket_message_failed', {
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      }),
    );
  }

  /** Messages waiting. */
  get size(): number {
    return this.queue.size;
  }

  /** `handle` runs in a later turn, after every message posted before it. It should not throw (a throw is logged). */
  post(handle: () => void): void {
    this.queue.post(handle);
  }
}

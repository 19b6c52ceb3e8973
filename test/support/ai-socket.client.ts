import { io, Socket } from 'socket.io-client';
import type {
  AiClientToServerEvents,
  AiCompleteEvent,
  AiErrorEvent,
  AiServerToClientEvents,
} from '../../src/ai/socket/ai-socket.events';

export type AiServerEventName = keyof AiServerToClientEvents;

/** One event as received, in order. */
export interface ReceivedEvent {
  event: AiServerEventName;
  payload: Parameters<AiServerToClientEvents[AiServerEventName]>[0];
}

/** Everything received for one request `_id` once its terminal event arrived. */
export interface RequestRecording {
  events: ReceivedEvent[];
  /** Event names in order. */
  names: AiServerEventName[];
  /** The concatenated ai:token texts. */
  text: string;
  tokenEvents: number;
  complete?: AiCompleteEvent;
  error?: AiErrorEvent;
}

type ClientSocket = Socket<AiServerToClientEvents, AiClientToServerEvents>;

/**
 * A socket.io-client on namespace `/ai` that records every `ai:*` event, typed with the gateway's
 * event maps (so tests emit exactly what the contract allows), and resolves a request's recording
 * when its terminal event arrives.
 */
export class AiSocketClient {
  readonly received: ReceivedEvent[] = [];
  private readonly waiters: Array<{ check: () => boolean; resolve: () => void }> = [];

  private constructor(readonly socket: ClientSocket) {
    socket.onAny((event: AiServerEventName, payload: ReceivedEvent['payload']) => {
      this.received.push({ event, payload });
      for (const waiter of [...this.waiters]) {
        if (waiter.check()) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    });
  }

  /** Connects to `<baseUrl>/ai`; rejects with the connect_error (message "unauthorized" when refused). */
  static connect(
    baseUrl: string,
    options: {
      token?: string;
      transports?: Array<'websocket' | 'polling'>;
      /** Handshake headers (an `Origin` a browser page would send, a `traceparent`). */
      headers?: Record<string, string>;
    } = {},
  ): Promise<AiSocketClient> {
    const socket: ClientSocket = io(`${baseUrl}/ai`, {
      reconnection: false,
      forceNew: true,
      transports: options.transports ?? ['websocket'],
      ...(options.token !== undefined ? { auth: { token: options.token } } : {}),
      ...(options.headers ? { extraHeaders: options.headers } : {}),
    });
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve(new AiSocketClient(socket)));
      socket.once('connect_error', (error) => {
        socket.close();
        reject(error);
      });
    });
  }

  chat(payload: Parameters<AiClientToServerEvents['ai:chat']>[0], timeoutMs?: number): Promise<RequestRecording> {
    this.socket.emit('ai:chat', payload);
    return this.terminalOf(payload._id, timeoutMs);
  }

  resume(payload: Parameters<AiClientToServerEvents['ai:resume']>[0]): Promise<RequestRecording> {
    this.socket.emit('ai:resume', payload);
    return this.terminalOf(payload._id);
  }

  /** `ai:undo` (docs/protocol.md §9.4): resolves once its `ai:reverted` or `ai:error` arrived. */
  undo(payload: Parameters<AiClientToServerEvents['ai:undo']>[0]): Promise<RequestRecording> {
    this.socket.emit('ai:undo', payload);
    return this.terminalOf(payload._id);
  }

  restore(payload: Parameters<AiClientToServerEvents['ai:restore']>[0]): Promise<RequestRecording> {
    this.socket.emit('ai:restore', payload);
    return this.terminalOf(payload._id);
  }

  interrupt(id: number, token?: string): void {
    this.socket.emit('ai:interrupt', { _id: id, ...(token !== undefined ? { token } : {}) });
  }

  /** Sends anything under any event name (malformed payloads). */
  emitRaw(event: string, payload: unknown): void {
    (this.socket as unknown as { emit(event: string, payload: unknown): void }).emit(event, payload);
  }

  /** Resolves with everything received for `_id` once its terminal event (ai:complete, ai:reverted, ai:error) arrived. */
  async terminalOf(id: number | null, timeoutMs = 5000): Promise<RequestRecording> {
    await this.waitUntil(
      () => this.eventsOf(id).some((event) => isTerminal(event.event)),
      timeoutMs,
      `terminal event of _id ${id}`,
    );
    return this.recordingOf(id);
  }

  /** Resolves once `predicate` holds for the received events. */
  waitUntil(predicate: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        check: predicate,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(
          new Error(
            `AiSocketClient: no ${what} within ${timeoutMs} ms; received ${JSON.stringify(this.received.map((e) => e.event))}`,
          ),
        );
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Resolves with the first ai:token of `_id`. */
  async firstToken(id: number, timeoutMs = 5000): Promise<string> {
    await this.waitUntil(
      () => this.eventsOf(id).some((event) => event.event === 'ai:token'),
      timeoutMs,
      `ai:token of _id ${id}`,
    );
    return (this.eventsOf(id).find((event) => event.event === 'ai:token')!.payload as { token: string }).token;
  }

  eventsOf(id: number | null): ReceivedEvent[] {
    return this.received.filter((event) => (event.payload as { _id: number | null })._id === id);
  }

  recordingOf(id: number | null): RequestRecording {
    const events = this.eventsOf(id);
    const tokens = events
      .filter((event) => event.event === 'ai:token')
      .map((event) => (event.payload as { token: string }).token);
    const complete = events.find((event) => event.event === 'ai:complete')?.payload as AiCompleteEvent | undefined;
    const error = events.find((event) => event.event === 'ai:error')?.payload as AiErrorEvent | undefined;
    return {
      events,
      names: events.map((event) => event.event),
      text: tokens.join(''),
      tokenEvents: tokens.length,
      complete,
      error,
    };
  }

  close(): void {
    this.socket.close();
  }
}

function isTerminal(event: AiServerEventName): boolean {
  return event === 'ai:complete' || event === 'ai:error' || event === 'ai:reverted';
}

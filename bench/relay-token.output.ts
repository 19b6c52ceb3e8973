import type { Socket } from 'socket.io';
import { TokenFlushScheduler } from '../src/ai/socket/token-flush.scheduler';

/** The transports' TOKEN_FLUSH_INTERVAL_MS and TOKEN_FLUSH_MAX_CHARS (src/ai/socket/token-flush.scheduler.ts). */
export const FLUSH_INTERVAL_MS = 10;
const FLUSH_MAX_CHARS = 4096;

/** How a conversation's text reaches its socket. */
export interface TokenOutput {
  token(text: string): void;
  /** Sends what is buffered (before any other event). */
  flush(): void;
}

/** One `ai:token` per delta: what a relay written with any SDK or framework sends. */
export function perDelta(socket: Socket, id: number): TokenOutput {
  return { token: (text) => socket.emit('ai:token', { _id: id, token: text }), flush: () => undefined };
}

/** The service's coalescing: buffered text goes out on the shared scheduler's tick, or at once past FLUSH_MAX_CHARS. */
export function coalesced(socket: Socket, id: number, scheduler: TokenFlushScheduler): TokenOutput {
  let buffer = '';
  const output = {
    token(text: string) {
      buffer += text;
      if (buffer.length >= FLUSH_MAX_CHARS) output.flush();
      else scheduler.schedule(output);
    },
    flush() {
      scheduler.cancel(output);
      if (buffer.length === 0) return;
      const text = buffer;
      buffer = '';
      socket.emit('ai:token', { _id: id, token: text });
    },
  };
  return output;
}

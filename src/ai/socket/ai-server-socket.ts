import type { Namespace, Socket } from 'socket.io';
import type { AuthenticatedSocketData } from '../../auth/socket.authenticator';
import type { ThreadStopReason } from '../runs/active-run.registry';
import type { AiClientToServerEvents, AiServerToClientEvents } from './ai-socket.events';

/**
 * Messages between the instances (Socket.IO's serverSideEmit, through the Redis adapter
 * "Several instances"), about a run by its run key: stop it (`ai:interrupt` reached another instance), and a
 * socket that rejoined it on another instance started or stopped watching it (AI_DISCONNECT_POLICY); and about the
 * run holding a thread: stop it (a message sent with multitaskStrategy `interrupt` or `rollback`).
 */
export interface AiServerSideEvents {
  'ai:run_stop': (runKey: string, answer: (stopped: boolean) => void) => void;
  'ai:thread_stop': (threadId: string, reason: ThreadStopReason, answer: (stopped: boolean) => void) => void;
  'ai:run_watch': (runKey: string, watcher: string) => void;
  'ai:run_unwatch': (runKey: string, watcher: string) => void;
}

/** A server-side socket of the `/ai` namespace, typed with the shared event maps (ai-socket.events.ts). */
export type AiServerSocket = Socket<
  AiClientToServerEvents,
  AiServerToClientEvents,
  AiServerSideEvents,
  AuthenticatedSocketData
>;

export type AiNamespace = Namespace<
  AiClientToServerEvents,
  AiServerToClientEvents,
  AiServerSideEvents,
  AuthenticatedSocketData
>;

/** What a run's sink needs of its socket. */
export type AiEventTarget = Pick<AiServerSocket, 'emit' | 'connected'>;

import type { Namespace, Socket } from 'socket.io';
import type { AuthenticatedSocketData } from '../../auth/socket.authenticator';
import type { AiClientToServerEvents, AiServerToClientEvents } from './ai-socket.events';

/** A server-side socket of the `/ai` namespace, typed with the shared event maps (ai-socket.events.ts). */
export type AiServerSocket = Socket<AiClientToServerEvents, AiServerToClientEvents, Record<string, never>, AuthenticatedSocketData>;

export type AiNamespace = Namespace<AiClientToServerEvents, AiServerToClientEvents, Record<string, never>, AuthenticatedSocketData>;

/** What a run's sink needs of its socket. */
export type AiEventTarget = Pick<AiServerSocket, 'emit' | 'connected'>;

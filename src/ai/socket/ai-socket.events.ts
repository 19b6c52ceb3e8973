import type { Namespace, Socket } from 'socket.io';
import type { AuthenticatedSocketData } from '../../auth/socket.authenticator';
import type { ErrorCode } from '../../errors/error-code';
import type { UsageReport } from '../agent/agent-result';
import type { Interrupt } from '../../conversation/interrupt';

/**
 * The Socket.IO contract of namespace `/ai` (docs/protocol.md §4) as types, so every emit of the gateway
 * and of test clients is checked against it. `_id` is the client-chosen integer correlating answers.
 */

export interface AiChatMessage {
  _id: number;
  graphKey: string;
  message: string;
  threadId?: string;
  mentions?: string[];
  /** A JWT for this message only, instead of the handshake's. */
  token?: string;
}

export interface AiResumeMessage {
  _id: number;
  threadId: string;
  approved: boolean;
  feedback?: string;
  answer?: string;
  token?: string;
}

export interface AiInterruptMessage {
  /** The `_id` of the running request to stop. */
  _id: number;
  token?: string;
}

export interface AiClientToServerEvents {
  'ai:chat': (message: AiChatMessage) => void;
  'ai:resume': (message: AiResumeMessage) => void;
  'ai:interrupt': (message: AiInterruptMessage) => void;
}

export interface AiThreadEvent {
  _id: number;
  threadId: string;
}

export interface AiTokenEvent {
  _id: number;
  /** One or more fragments, coalesced; all ai:token of a request concatenated are its text. */
  token: string;
}

export interface AiToolStartEvent {
  _id: number;
  toolCallId: string;
  toolName: string;
}

export interface AiToolResultEvent {
  _id: number;
  toolCallId: string;
  result: string;
}

export interface AiCompleteEvent {
  _id: number;
  threadId: string;
  /** Every ai:token of the request, concatenated. */
  fullText: string;
  usage: UsageReport;
  interrupt?: Interrupt;
  aborted?: true;
}

export interface AiErrorEvent {
  /** null: the error concerns no request of its own (see docs/protocol-notes.md). */
  _id: number | null;
  /** User-facing text in the AI_LOCALE language. */
  error: string;
  code: ErrorCode;
  retryable: boolean;
}

export interface AiServerToClientEvents {
  'ai:thread': (event: AiThreadEvent) => void;
  'ai:token': (event: AiTokenEvent) => void;
  'ai:tool_start': (event: AiToolStartEvent) => void;
  'ai:tool_result': (event: AiToolResultEvent) => void;
  'ai:complete': (event: AiCompleteEvent) => void;
  'ai:error': (event: AiErrorEvent) => void;
}

/** A server-side socket of the `/ai` namespace. */
export type AiServerSocket = Socket<AiClientToServerEvents, AiServerToClientEvents, Record<string, never>, AuthenticatedSocketData>;

export type AiNamespace = Namespace<AiClientToServerEvents, AiServerToClientEvents, Record<string, never>, AuthenticatedSocketData>;

/** What a run's sink needs of its socket. */
export type AiEventTarget = Pick<AiServerSocket, 'emit' | 'connected'>;

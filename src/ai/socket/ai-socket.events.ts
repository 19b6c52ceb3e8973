import type { MessageSegment } from '../../conversation/rich-message';
import type { ErrorCode } from '../../errors/error-code';
import type { ActionConversionResult } from '../../conversation/action-conversion-result';
import type { ProposedAction } from '../../conversation/proposed-action';
import type { UsageReport } from '../agent/agent-result';
import type { Interrupt } from '../../conversation/interrupt';
import type { ThreadEvent } from '../../conversation/thread-event';
import type { RefusedRevert } from '../../changes/operation';
import type { MultitaskStrategy } from '../multitask-strategy';

export type { ThreadEvent } from '../../conversation/thread-event';
export type { RefusedRevert } from '../../changes/operation';
export type { MultitaskStrategy } from '../multitask-strategy';

/**
 * The Socket.IO contract of namespace `/ai` (docs/protocol.md §4 and §8) as types: the one definition
 * shared by the gateway (through ai-server-socket.ts) and the client package (client/src/protocol.ts),
 * so a change that breaks either side fails `npm run typecheck`. Keep this file and what it imports
 * pure types: the browser client compiles them. `_id` is the client-chosen integer
 * correlating answers.
 */

export interface AiChatMessage {
  _id: number;
  graphKey: string;
  /** Required unless `segments` is given; with both, it is the first text segment. */
  message?: string;
  /** A rich message (docs/protocol.md §9.6): text and blocks. */
  segments?: MessageSegment[];
  threadId?: string;
  mentions?: string[];
  /** docs/protocol.md §9.7: what this message does while a run is active on the thread (default `reject`). */
  multitaskStrategy?: MultitaskStrategy;
  /** A JWT for this message only, instead of the handshake's. */
  token?: string;
}

export interface AiResumeMessage {
  _id: number;
  threadId: string;
  approved: boolean;
  feedback?: string;
  /** The answer to a question interrupt (docs/protocol.md §8.2). */
  answer?: string;
  /** A batch proposal: the items approved, the others declined (docs/protocol.md §9.3). */
  approvedItems?: string[];
  token?: string;
}

/** `ai:undo` (docs/protocol.md §9.4): reverts a message's changes (default: the latest assistant message that applied any). */
export interface AiUndoMessage {
  _id: number;
  threadId: string;
  messageId?: string;
  token?: string;
}

/** `ai:restore` (docs/protocol.md §9.4): reverts everything the assistant applied after `messageId`. */
export interface AiRestoreMessage {
  _id: number;
  threadId: string;
  messageId: string;
  token?: string;
}

export interface AiInterruptMessage {
  /** The `_id` of the running request to stop. */
  _id: number;
  token?: string;
}

/** docs/protocol.md §8.7: replay the events of the thread's latest request after `lastSeq`, under `_id`, then live. */
export interface AiRejoinMessage {
  _id: number;
  threadId: string;
  lastSeq: number;
  token?: string;
}

export interface AiClientToServerEvents {
  'ai:chat': (message: AiChatMessage) => void;
  'ai:resume': (message: AiResumeMessage) => void;
  'ai:interrupt': (message: AiInterruptMessage) => void;
  'ai:rejoin': (message: AiRejoinMessage) => void;
  'ai:undo': (message: AiUndoMessage) => void;
  'ai:restore': (message: AiRestoreMessage) => void;
}

/** What every server → client event of a request carries. */
export interface AiRequestEvent {
  _id: number;
  /** docs/protocol.md §8.7: 1, 2, 3, … within the request (with several instances). */
  seq?: number;
}

export interface AiThreadEvent extends AiRequestEvent {
  threadId: string;
}

/**
 * docs/protocol.md §9.7: the message waits for its thread (multitaskStrategy `enqueue`, or `interrupt` / `rollback`
 * while the active run stops). Nothing of it is stored yet: its `ai:thread` comes when its turn does.
 */
export interface AiQueuedEvent extends AiRequestEvent {
  threadId: string;
}

export interface AiTokenEvent extends AiRequestEvent {
  /** One or more fragments, coalesced; all ai:token of a request concatenated are its text. */
  token: string;
}

export interface AiToolStartEvent extends AiRequestEvent {
  toolCallId: string;
  toolName: string;
}

export interface AiToolResultEvent extends AiRequestEvent {
  toolCallId: string;
  result: string;
}

export interface AiCompleteEvent extends AiRequestEvent {
  threadId: string;
  /** Every ai:token of the request, concatenated. */
  fullText: string;
  usage: UsageReport;
  interrupt?: Interrupt;
  aborted?: true;
  /** docs/protocol.md §9.7: stopped by a `rollback` message, its turn removed from the thread (with `aborted`). */
  rolledBack?: true;
}

export interface AiErrorEvent {
  /** null: the error concerns no request of its own (a payload without a numeric `_id`, a duplicate `_id`, a rejected `ai:interrupt`). */
  _id: number | null;
  seq?: number;
  /** User-facing text in the AI_LOCALE language. */
  error: string;
  code: ErrorCode;
  retryable: boolean;
}

/** `ai:event` (docs/protocol.md §8.3). */
export interface AiEventPayload extends AiRequestEvent {
  threadId: string;
  event: ThreadEvent;
}

/**
 * `ai:apply` (docs/protocol.md §8.1, §9.1, §9.4; HITL_APPLY=client): a change for the client to apply, under its
 * operation id (the same on a retry: de-duplicate on it). A proposal applied without a human carries its call and
 * action; a revert (undo, restore) the operations it reverts.
 */
export interface AiApplyEvent extends AiRequestEvent {
  threadId: string;
  operationId: string;
  toolCallId?: string;
  proposedAction?: ProposedAction;
  preview: ActionConversionResult;
  reverts?: string[];
}

/** `ai:reverted` (docs/protocol.md §9.4): the terminal event of `ai:undo` and `ai:restore`. */
export interface AiRevertedEvent extends AiRequestEvent {
  threadId: string;
  /** The revert's own operation. */
  operationId: string;
  /** The operations it reverted. */
  reverted: string[];
  /** What it did not revert, and why. */
  refused: RefusedRevert[];
  /** The ACTIONS_REVERTED event it wrote. */
  event: ThreadEvent;
}

/** `ai:approval_pending` (docs/protocol.md §8.4): an automation run waits for an editor or admin; not tied to a request. */
export interface AiApprovalPendingEvent {
  threadId: string;
  automationId?: string;
  interrupt: Interrupt;
}

export interface AiServerToClientEvents {
  'ai:thread': (event: AiThreadEvent) => void;
  'ai:queued': (event: AiQueuedEvent) => void;
  'ai:token': (event: AiTokenEvent) => void;
  'ai:tool_start': (event: AiToolStartEvent) => void;
  'ai:tool_result': (event: AiToolResultEvent) => void;
  'ai:complete': (event: AiCompleteEvent) => void;
  'ai:error': (event: AiErrorEvent) => void;
  'ai:event': (event: AiEventPayload) => void;
  'ai:apply': (event: AiApplyEvent) => void;
  'ai:reverted': (event: AiRevertedEvent) => void;
  'ai:approval_pending': (event: AiApprovalPendingEvent) => void;
}

/**
 * The service's contract as the client sees it: the socket event types are imported (types only, erased
 * at build time) from the one definition the gateway uses, src/ai/socket/ai-socket.events.ts, and the REST
 * shapes from the service's own types, so a change on either side that breaks the other fails
 * `npm run typecheck`. Two modules are shared as code, not only as types, both pure: the wording of
 * proposals (src/conversation/proposal-description.ts), so the service's preview items and the client's dialogs say
 * the same; the canonical form of a node or edge its fingerprint hashes (src/conversation/document-canonical-json.ts),
 * so the client finds a stale proposal as the service would; and the linear text of a rich message
 * (src/ai/blocks/linear-text.ts), so a sent message shows what the model reads. This file is the client's only door to
 * the service's sources.
 */
export type {
  AiApplyEvent,
  AiApprovalPendingEvent,
  AiChatMessage,
  AiClientToServerEvents,
  AiCompleteEvent,
  AiErrorEvent,
  AiEventPayload,
  AiInterruptMessage,
  AiQueuedEvent,
  AiRejoinMessage,
  AiRequestEvent,
  AiRestoreMessage,
  AiResumeMessage,
  AiRevertedEvent,
  AiServerToClientEvents,
  AiThreadEvent,
  AiTokenEvent,
  AiToolResultEvent,
  AiToolStartEvent,
  AiUndoMessage,
  MultitaskStrategy,
  RefusedRevert,
  ThreadEvent,
} from '../../src/ai/socket/ai-socket.events';
export type { OperationActor, OperationVia } from '../../src/changes/operation';
export type { RevertResult, ThreadChangeView } from '../../src/ai/thread-changes.view';
export type { AgentResult, ProposalResolution } from '../../src/ai/agent/agent-result';
export type { ConfirmedAction, Interrupt, PromptEstimate } from '../../src/conversation/interrupt';
export type { BlockKind, BlockSegment, MessageSegment, TextSegment } from '../../src/conversation/rich-message';
export type {
  ChangedDocument,
  ProposalBasis,
  ProposalItem,
  ProposalPreview,
} from '../../src/conversation/proposal-preview';
export {
  describeChanges,
  describeItem,
  describeProposal,
  formatValue,
} from '../../src/conversation/proposal-description';
export { documentCanonicalJson } from '../../src/conversation/document-canonical-json';
export type { ChangeItem, ProposalDescription } from '../../src/conversation/proposal-description';
export { linearTextOf } from '../../src/ai/blocks/linear-text';
export type { UsageReport } from '../../src/ai/agent/agent-result';
export type { ProposedAction } from '../../src/conversation/proposed-action';
export type { ActionConversionResult } from '../../src/conversation/action-conversion-result';
export type { NodeFieldInstruction } from '../../src/graph/graph-change-set';
export type { ErrorCode } from '../../src/errors/error-code';
export type { ErrorBody } from '../../src/errors/error-body';
export type { GraphDocument, GraphEdge, GraphNode } from '../../src/graph/graph.types';
export type { ThreadSummary } from '../../src/threads/thread.types';
export type { ChatMessageView, ThreadView } from '../../src/ai/thread.view';
export type { MemoryEntryView } from '../../src/memory/http/memory-entry.view';
export type { GraphRAGContext, RelevantEdge, RelevantNode } from '../../src/conversation/graph-rag-context';
export type { PlaygroundSettings } from '../../src/playground/playground-settings';

import type { GraphRAGContext } from '../../src/conversation/graph-rag-context';
import type { Interrupt } from '../../src/conversation/interrupt';

/** POST /api/rag/context (docs/protocol.md §3). */
export interface RagContextResponse {
  context: GraphRAGContext;
  toon: string;
  tokenEstimate: number;
}

/** The filters of GET /api/ai/thread/:threadId/memory (docs/protocol.md §8.6); `since` and `until` are inclusive. */
export interface MemoryQuery {
  level?: 0 | 1 | 2;
  since?: number | string | Date;
  until?: number | string | Date;
}

export type ApprovalInterrupt = Extract<Interrupt, { kind: 'approval' }>;
export type QuestionInterrupt = Extract<Interrupt, { kind: 'question' }>;

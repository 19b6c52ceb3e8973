/** @graph-ai/client/core: the framework-free part (no React), for Node tools and other UI libraries */
export { AiChatClient } from './ai-chat.client';
export type {
  AiChatClientEvents,
  AiChatClientOptions,
  ChatInput,
  RestoreInput,
  ResumeInput,
  TokenSource,
  UndoInput,
} from './ai-chat.client';
export { AiRequest } from './ai-request';
export type { AiRequestError, AiRequestHandlers, AiRequestKind, AiRequestOutcome, AiRequestStatus } from './ai-request';
export { AiApiError, AiRestClient } from './ai-rest.client';
export type { AiRestClientOptions } from './ai-rest.client';
export { DEFAULT_COALESCE_MS, TokenCoalescer } from './token-coalescer';
export { describeChanges, describeItem, describeProposal, formatValue } from './protocol';
export type { ChangeItem, ProposalDescription } from './protocol';
export { formatUsage } from './usage-format';
export { reviewItems, unmetNeeds } from './proposal-items';
export type { ReviewItem, UnmetNeed } from './proposal-items';
export { describeChanged, proposalOutcomeOf } from './proposal-outcome';
export type { OutcomeItem, ProposalOutcome } from './proposal-outcome';
export { describeRefused } from './revert-outcome';
export { checkProposal, documentFingerprint } from './proposal-staleness';
export type { ProposalStaleness, Sha256Digest } from './proposal-staleness';
export { blockLabel, composeSegments, composerBlocks, pointerToNodes, pointerToSheet } from './compose-segments';
export type * from './protocol';

/** @graph-ai/client/core: the framework-free part (no React), for Node tools and other UI libraries (docs/client.md). */
export { AiChatClient } from './ai-chat.client';
export type { AiChatClientEvents, AiChatClientOptions, ChatInput, ResumeInput, TokenSource } from './ai-chat.client';
export { AiRequest } from './ai-request';
export type { AiRequestError, AiRequestHandlers, AiRequestKind, AiRequestOutcome, AiRequestStatus } from './ai-request';
export { AiApiError, AiRestClient } from './ai-rest.client';
export type { AiRestClientOptions } from './ai-rest.client';
export { DEFAULT_COALESCE_MS, TokenCoalescer } from './token-coalescer';
export { describeChanges, describeItem, describeProposal, formatValue } from './protocol';
export type { ChangeItem, ProposalDescription } from './protocol';
export { formatUsage } from './usage-format';
export type * from './protocol';

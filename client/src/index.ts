/** @graph-ai/client: the assistant's typed client, React hook and components */
export * from './core';
export { useAIChat } from './react/use-ai-chat';
export type { RevertState, UseAIChatOptions, UseAIChatReturn } from './react/use-ai-chat';
export { useProposalStaleness } from './react/use-proposal-staleness';
export type { AIChatMessage, AIToolCall } from './react/ai-chat-message';
export { AIChatInput } from './react/ai-chat-input';
export type { AIChatInputProps } from './react/ai-chat-input';
export { AIChatPanel } from './react/ai-chat-panel';
export type { AIChatPanelProps } from './react/ai-chat-panel';
export { AIInterruptModal } from './react/ai-interrupt-modal';
export type { AIInterruptModalProps } from './react/ai-interrupt-modal';

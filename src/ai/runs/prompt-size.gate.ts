import type { Locale } from '../../config/app-config';
import type { PromptEstimate } from '../../conversation/interrupt';
import type { LlmMessage, LlmToolDefinition } from '../../conversation/llm-message';
import { estimateTokens, estimateToolTokens } from '../../providers/token-estimate';

/** AI_CONFIRM_ABOVE_TOKENS and AI_CONFIRM_ABOVE_COST_USD (0: that limit never asks). */
export interface PromptSizeLimits {
  maxTokens: number;
  maxCostUsd: number;
}

/**
 * The estimate of a question's first upstream request: its messages and the tool definitions offered, with the
 * request path's cheap estimate (~3 characters per token, on the high side), and their input price.
 */
export function estimatePrompt(
  messages: readonly LlmMessage[],
  tools: readonly LlmToolDefinition[],
  inputCost: (tokens: number) => number | null,
): PromptEstimate {
  const tokens = estimateTokens(messages) + estimateToolTokens(tools);
  const cost = inputCost(tokens);
  return { tokens, costUsd: cost === null ? null : Math.round(cost * 1_000_000) / 1_000_000 };
}

/** Whether the prompt must be confirmed (a chat) or not sent (an automation): over either limit that is set. */
export function exceedsPromptLimits(estimate: PromptEstimate, limits: PromptSizeLimits): boolean {
  if (limits.maxTokens > 0 && estimate.tokens > limits.maxTokens) return true;
  return limits.maxCostUsd > 0 && estimate.costUsd !== null && estimate.costUsd > limits.maxCostUsd;
}

const QUESTIONS: Readonly<Record<Locale, (estimate: PromptEstimate) => string>> = Object.freeze({
  en: (estimate) =>
    `This question is large: its prompt is about ${estimate.tokens.toLocaleString('en-US')} tokens` +
    `${estimate.costUsd !== null ? ` (about $${formatCost(estimate.costUsd)})` : ''}, over the limit set for this service. Send it?`,
  fr: (estimate) =>
    `Cette question est volumineuse : son prompt fait environ ${estimate.tokens.toLocaleString('fr-FR')} tokens` +
    `${estimate.costUsd !== null ? ` (environ ${formatCost(estimate.costUsd)} $)` : ''}, au-delà de la limite fixée pour ce service. L'envoyer ?`,
});

/** The confirm question the user is asked, with the estimate, in the AI_LOCALE language. */
export function promptSizeQuestion(estimate: PromptEstimate, locale: Locale): string {
  return (QUESTIONS[locale] ?? QUESTIONS.en)(estimate);
}

/** The error text an automation's run records when its prompt was over the limit. */
export function tooLargeMessage(estimate: PromptEstimate, limits: PromptSizeLimits): string {
  const over = [
    ...(limits.maxTokens > 0 ? [`AI_CONFIRM_ABOVE_TOKENS=${limits.maxTokens}`] : []),
    ...(limits.maxCostUsd > 0 ? [`AI_CONFIRM_ABOVE_COST_USD=${limits.maxCostUsd}`] : []),
  ].join(', ');
  return (
    `Not sent: its prompt was about ${estimate.tokens.toLocaleString('en-US')} tokens` +
    `${estimate.costUsd !== null ? ` (about $${formatCost(estimate.costUsd)})` : ''}, over the limit (${over})`
  );
}

function formatCost(costUsd: number): string {
  return costUsd >= 1 ? costUsd.toFixed(2) : costUsd.toPrecision(2);
}

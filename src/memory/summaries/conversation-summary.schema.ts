import Ajv, { ErrorObject } from 'ajv';
import { ConversationSummary } from './conversation-summary';

const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength });
const list = (maxItems: number, maxLength: number) => ({ type: 'array', maxItems, items: text(maxLength) });

/**
 * The structured output of a summary call, as JSON Schema: offered to the model as the parameters of
 * the `record_summary` tool, and checked on what comes back. Bounds keep a misbehaving model from
 * storing a novel.
 */
export const CONVERSATION_SUMMARY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['summary', 'nodesMentioned', 'keyFindings', 'toolsUsed', 'topics'],
  properties: {
    summary: { ...text(4000), description: 'The summary itself, at most about 150 words.' },
    nodesMentioned: {
      ...list(50, 200),
      description: 'Keys of the graph nodes the conversation talks about, exactly as written.',
    },
    keyFindings: {
      ...list(20, 500),
      description: 'Short facts established or stated (values, names, decisions, problems found).',
    },
    toolsUsed: { ...list(30, 100), description: 'Names of the tools the assistant used.' },
    topics: { ...list(10, 100), description: 'A few topics, a few words each.' },
  },
} as const;

const validate = new Ajv({ allErrors: true }).compile<ConversationSummary>(CONVERSATION_SUMMARY_SCHEMA);

/** A summary call answered something that is not a valid ConversationSummary. */
export class SummaryOutputError extends Error {
  constructor(
    message: string,
    readonly problems: string[],
  ) {
    super(`${message}${problems.length > 0 ? `: ${problems.join('; ')}` : ''}`);
    this.name = 'SummaryOutputError';
  }
}

/** Checks a parsed value against the schema; returns it with strings trimmed and list items deduplicated. */
export function parseConversationSummary(value: unknown): ConversationSummary {
  if (!validate(value))
    throw new SummaryOutputError('The summary does not match its schema', describe(validate.errors ?? []));
  const unique = (items: string[]) => [...new Set(items.map((item) => item.trim()).filter((item) => item.length > 0))];
  return {
    summary: value.summary.trim(),
    nodesMentioned: unique(value.nodesMentioned),
    keyFindings: unique(value.keyFindings),
    toolsUsed: unique(value.toolsUsed),
    topics: unique(value.topics),
  };
}

function describe(errors: ErrorObject[]): string[] {
  return errors.slice(0, 5).map((error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`);
}

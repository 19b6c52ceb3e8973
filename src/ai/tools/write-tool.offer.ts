import { LlmToolDefinition } from '../../conversation/llm-message';
import { PolicyLevel } from '../../policy/action-policy';
import { RunAuthority } from '../authority/run-authority';
import { APPROVAL_NOTE, batchSchema, SINGLE_ACTION_TYPES, WRITE_TOOL_REGISTRY } from './write-tool.definitions';

/** What a write tool's description tells the caller's model of what becomes of its proposals, per level and for a batch. */
export interface WriteToolNotes {
  levels: Readonly<Record<Exclude<PolicyLevel, 'forbidden'>, string>>;
  /** A batch when every offered kind waits for a human. */
  everyKindApproved: string;
  /** A batch otherwise. */
  mixedBatch: string;
}

/** What becomes of a proposal of a kind at each level, as its tool's description tells the model. */
const LEVEL_NOTES: WriteToolNotes['levels'] = {
  autonomous:
    'This workspace lets it apply at once, without approval: the tool result says whether it was applied or failed. Do not ask for approval first.',
  validation_required: APPROVAL_NOTE,
  ask_first:
    'This workspace requires the user\'s agreement first: ask with ask_user (kind "confirm", with forAction naming this kind and ' +
    'the node or edge it concerns), saying exactly what you intend to change, and propose it in a later reply, after they answer ' +
    'yes; without that yes the proposal is refused.',
};

const BATCH_NOTE =
  'A batch is handled like the strictest of its actions (and of batches themselves): applied at once only when each of them may be, ' +
  "otherwise it waits for a human, needs the user's yes first, or is refused, as their tools say.";

const CHAT_NOTES: WriteToolNotes = { levels: LEVEL_NOTES, everyKindApproved: APPROVAL_NOTE, mixedBatch: BATCH_NOTE };

/**
 * The write tools a run offers: only the kinds its policy does not forbid, each
 * described with what becomes of its proposals at its level; propose_batch lists only the offered
 * action types, and is not offered when `batch` is forbidden or no single kind is offered. Without a
 * policy (every kind validation_required) this is WRITE_TOOL_DEFINITIONS. `notes`: what the descriptions say of each
 * level, the chat's by default (the MCP server's caller has no ask_user and no paused conversation).
 */
export function offeredWriteTools(policy: RunAuthority, notes: WriteToolNotes = CHAT_NOTES): LlmToolDefinition[] {
  const offered = new Set(policy.offeredKinds());
  const singles = SINGLE_ACTION_TYPES.filter((kind) => offered.has(kind));
  const everyKindApproved = [...offered].every((kind) => policy.levelOfKind(kind) === 'validation_required');
  return WRITE_TOOL_REGISTRY.tools
    .filter((tool) => offered.has(tool.kind) && (tool.kind !== 'batch' || singles.length > 0))
    .map((tool) => {
      if (tool.kind !== 'batch') {
        const level = policy.levelOfKind(tool.kind) as Exclude<PolicyLevel, 'forbidden'>;
        return describe(tool.definition, `${tool.summary} ${notes.levels[level]}`);
      }
      const note = everyKindApproved ? notes.everyKindApproved : notes.mixedBatch;
      return describe(tool.definition, `${tool.summary} ${note}`, batchSchema(singles));
    });
}

function describe(
  definition: LlmToolDefinition,
  description: string,
  parameters = definition.function.parameters,
): LlmToolDefinition {
  return { type: 'function', function: { name: definition.function.name, description, parameters } };
}

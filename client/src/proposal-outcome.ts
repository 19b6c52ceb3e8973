import type { ChangedDocument } from './protocol';

/** An item of a batch as the model was told it was applied or declined. */
export interface OutcomeItem {
  itemId: string;
  description: string;
}

/**
 * What became of a proposal, read from its tool result (docs/protocol.md §3, §9.2, §9.3): a human's decision
 * (`approved`, `rejected`), a change the policy applied (`applied`), or nothing applied (`stale`: the graph changed
 * since, `changed` says what; `failed`).
 */
export interface ProposalOutcome {
  status: 'approved' | 'rejected' | 'applied' | 'stale' | 'failed';
  message?: string;
  changed?: ChangedDocument[];
  appliedItems?: OutcomeItem[];
  declinedItems?: OutcomeItem[];
}

const STATUSES = new Set<ProposalOutcome['status']>(['approved', 'rejected', 'applied', 'stale', 'failed']);
const KINDS = new Set(['node', 'edge']);
const CHANGES = new Set(['modified', 'deleted', 'created']);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function itemsOf(value: unknown): OutcomeItem[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(
    (item): item is OutcomeItem =>
      isRecord(item) && typeof item.itemId === 'string' && typeof item.description === 'string',
  );
}

/**
 * The outcome of a proposal from its tool result (the JSON the model received), or null when the result is not one
 * (a read tool's, an error, a question's answer). Unknown fields are ignored, malformed parts left out.
 */
export function proposalOutcomeOf(result: string | undefined): ProposalOutcome | null {
  if (!result || !result.startsWith('{')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(result);
  } catch {
    return null;
  }
  if (!isRecord(parsed) || !STATUSES.has(parsed.status as ProposalOutcome['status'])) return null;
  const outcome: ProposalOutcome = { status: parsed.status as ProposalOutcome['status'] };
  if (typeof parsed.message === 'string') outcome.message = parsed.message;
  if (Array.isArray(parsed.changed)) {
    outcome.changed = parsed.changed.filter(
      (part): part is ChangedDocument =>
        isRecord(part) &&
        KINDS.has(part.kind as string) &&
        typeof part.key === 'string' &&
        CHANGES.has(part.change as string),
    );
  }
  const applied = itemsOf(parsed.appliedItems);
  const declined = itemsOf(parsed.declinedItems);
  if (applied) outcome.appliedItems = applied;
  if (declined) outcome.declinedItems = declined;
  return outcome;
}

const CHANGE_WORDS: Record<ChangedDocument['change'], string> = {
  modified: 'was changed',
  deleted: 'was deleted',
  created: 'was created',
};

/** One line per node or edge that changed since a proposal, e.g. `Node "filter-active" was changed`. */
export function describeChanged(changed: readonly ChangedDocument[]): string[] {
  return changed.map((part) => `${part.kind === 'node' ? 'Node' : 'Edge'} "${part.key}" ${CHANGE_WORDS[part.change]}`);
}

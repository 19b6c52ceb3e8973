import type { ActionConversionResult } from './action-conversion-result';
import type { ProposedActionType } from './proposed-action';

/** A node's or edge's content as a proposal saw it (a fingerprint of its document), or null: it must not exist. */
export type DocumentFingerprint = string | null;

/**
 * What a proposal was made against: the graph's revision then (informational), and the
 * fingerprint of every node and edge it reads or touches. Approving it when any of them changed applies nothing.
 */
export interface ProposalBasis {
  /** Opaque: the store's revision of the graph when the proposal was made (null when the store keeps none). */
  graphRevision: string | null;
  nodes: Record<string, DocumentFingerprint>;
  edges: Record<string, DocumentFingerprint>;
}

/** One action of a batch proposal, as a reviewer accepts or declines it. */
export interface ProposalItem {
  /** Stable within the proposal: `i1`, `i2`, … in the batch's order (nested batches flattened). */
  itemId: string;
  type: Exclude<ProposedActionType, 'batch'>;
  /** One readable line (proposal-description.ts). */
  description: string;
}

/** The preview an approval interrupt carries: the change set approval applies, what it was made against, its items. */
export interface ProposalPreview extends ActionConversionResult {
  basis: ProposalBasis;
  /** A batch's items; absent for a single action. */
  items?: ProposalItem[];
}

/** A node or edge of a proposal's basis that changed since (`changed`). */
export interface ChangedDocument {
  kind: 'node' | 'edge';
  key: string;
  change: 'modified' | 'deleted' | 'created';
}

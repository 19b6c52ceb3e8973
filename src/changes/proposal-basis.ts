import type { ActionConversionResult } from '../conversation/action-conversion-result';
import type { ChangedDocument, DocumentFingerprint, ProposalBasis } from '../conversation/proposal-preview';
import { fingerprintOf } from './document.fingerprint';
import { GraphSnapshot, keysOfChanges, SnapshotKeys } from './graph-snapshot';

/**
 * What a proposal reads or touches: its nodes and edges, the ends of the edges it creates,
 * and the edges of the nodes it deletes (removed with them). Their fingerprints as `view` shows them are its basis.
 */
export function basisOf(
  changes: ActionConversionResult,
  view: GraphSnapshot,
  graphRevision: string | null,
): ProposalBasis {
  const keys = keysOfChanges(changes);
  const nodes: Record<string, DocumentFingerprint> = {};
  const edges: Record<string, DocumentFingerprint> = {};
  for (const key of [...keys.nodes].sort()) nodes[key] = fingerprintOf(view.node(key));
  const edgeKeys = new Set([...keys.edges, ...[...keys.edgesOfNodes].flatMap((key) => view.edgesOf(key))]);
  for (const key of [...edgeKeys].sort()) edges[key] = fingerprintOf(view.edge(key));
  return { graphRevision, nodes, edges };
}

/** The keys of a basis, for a snapshot that checks it (with the edges of the nodes `changes` deletes). */
export function basisKeys(basis: ProposalBasis, changes: ActionConversionResult): SnapshotKeys {
  return {
    nodes: new Set(Object.keys(basis.nodes)),
    edges: new Set(Object.keys(basis.edges)),
    edgesOfNodes: new Set(changes.nodeKeysToDelete),
  };
}

/**
 * What changed in `view` since `basis` (the basis of what is applied: a whole proposal, or the approved items of a
 * batch): each of its nodes and edges modified, deleted, or created where it had to be absent; and an edge that now
 * touches a node `changes` deletes (it would go with it) counts as created. Empty: not stale.
 */
export function changedSince(
  basis: ProposalBasis,
  changes: ActionConversionResult,
  view: GraphSnapshot,
): ChangedDocument[] {
  const changed: ChangedDocument[] = [];
  const compare = (kind: 'node' | 'edge', key: string, then: DocumentFingerprint, now: DocumentFingerprint) => {
    if (then === now) return;
    changed.push({ kind, key, change: then === null ? 'created' : now === null ? 'deleted' : 'modified' });
  };
  for (const key of Object.keys(basis.nodes).sort())
    compare('node', key, basis.nodes[key], fingerprintOf(view.node(key)));
  const edgeKeys = new Set(Object.keys(basis.edges));
  for (const key of [...edgeKeys].sort()) compare('edge', key, basis.edges[key], fingerprintOf(view.edge(key)));
  const appeared = new Set(
    changes.nodeKeysToDelete.flatMap((key) => view.edgesOf(key)).filter((key) => !edgeKeys.has(key)),
  );
  for (const key of [...appeared].sort()) changed.push({ kind: 'edge', key, change: 'created' });
  return changed;
}

/** Several bases as one (the approved items of a batch): every node and edge of each. */
export function mergedBasis(bases: ProposalBasis[], graphRevision: string | null): ProposalBasis {
  return {
    graphRevision,
    nodes: Object.assign({}, ...bases.map((basis) => basis.nodes)) as ProposalBasis['nodes'],
    edges: Object.assign({}, ...bases.map((basis) => basis.edges)) as ProposalBasis['edges'],
  };
}

import { reviewItems } from './proposal-items';
import { documentCanonicalJson } from './protocol';
import type { ApprovalInterrupt, ChangedDocument, GraphDocument, ProposalBasis } from './protocol';

/** The part of WebCrypto the check needs (`crypto.subtle` in browsers on HTTPS or localhost, and in Node). */
export interface Sha256Digest {
  digest(algorithm: 'SHA-256', data: Uint8Array): Promise<ArrayBuffer>;
}

/** A pending proposal checked against the graph as it is now (docs/protocol.md §9.2). */
export interface ProposalStaleness {
  /** Every node and edge of its basis that changed since it was made, as the service would list them. */
  changed: ChangedDocument[];
  /** The items of a batch that changed parts concern: approving any of them would be refused as stale. */
  staleItems: ReadonlySet<string>;
  /** Nothing of it can be applied any more: a single proposal with a change, or a batch whose every item is stale. */
  stale: boolean;
}

type GraphNow = Pick<GraphDocument, 'nodes' | 'edges'>;

/** The fingerprint the service computes (first 16 hex digits of the SHA-256 of the canonical JSON); null: absent. */
export async function documentFingerprint(
  document: object | null | undefined,
  subtle: Sha256Digest,
): Promise<string | null> {
  if (!document) return null;
  const digest = await subtle.digest('SHA-256', new TextEncoder().encode(documentCanonicalJson(document)));
  return [...new Uint8Array(digest).slice(0, 8)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

function defaultSubtle(): Sha256Digest | null {
  return (globalThis as { crypto?: { subtle?: Sha256Digest } }).crypto?.subtle ?? null;
}

/**
 * Checks a pending proposal against `graph` (GET /api/graphs/:graphKey, which shows the live overlay as the service's
 * check does): each node and edge of its basis whose fingerprint differs now, and each edge that now touches a node it
 * deletes. The same verdict as the service's on approval, given the same graph. For a batch, which items those
 * changes concern, so the reviewer can still approve the others. Null when it cannot be checked: a preview without
 * a basis, or no WebCrypto (a page served over plain HTTP from another host than localhost).
 */
export async function checkProposal(
  interrupt: ApprovalInterrupt,
  graph: GraphNow,
  subtle: Sha256Digest | null = defaultSubtle(),
): Promise<ProposalStaleness | null> {
  const basis = interrupt.preview.basis;
  if (!basis || !subtle) return null;
  const nodes = new Map(graph.nodes.map((node) => [node._key, node]));
  const edges = new Map(graph.edges.map((edge) => [edge._key, edge]));
  const changed = await changedSince(basis, interrupt.preview.nodeKeysToDelete, nodes, edges, subtle);
  const staleItems = staleItemsOf(interrupt, changed, edges);
  const itemCount = interrupt.preview.items?.length ?? 0;
  const stale = changed.length > 0 && (itemCount === 0 || staleItems.size === itemCount);
  return { changed, staleItems, stale };
}

async function changedSince(
  basis: ProposalBasis,
  nodeKeysToDelete: readonly string[],
  nodes: ReadonlyMap<string, object>,
  edges: ReadonlyMap<string, { source: string; target: string }>,
  subtle: Sha256Digest,
): Promise<ChangedDocument[]> {
  const changed: ChangedDocument[] = [];
  const compare = async (kind: 'node' | 'edge', key: string, then: string | null, document: object | undefined) => {
    const now = await documentFingerprint(document, subtle);
    if (then === now) return;
    changed.push({ kind, key, change: then === null ? 'created' : now === null ? 'deleted' : 'modified' });
  };
  for (const key of Object.keys(basis.nodes).sort()) await compare('node', key, basis.nodes[key], nodes.get(key));
  for (const key of Object.keys(basis.edges).sort()) await compare('edge', key, basis.edges[key], edges.get(key));
  const deleted = new Set(nodeKeysToDelete);
  const appeared = [...edges]
    .filter(([key, edge]) => !(key in basis.edges) && (deleted.has(edge.source) || deleted.has(edge.target)))
    .map(([key]) => key)
    .sort();
  for (const key of appeared) changed.push({ kind: 'edge', key, change: 'created' });
  return changed;
}

/**
 * The items a change concerns: those that touch or read that node (an edge's ends included) or that edge, and for
 * an edge no item names, the items deleting one of its ends (it goes with the node). A change no item can be found
 * for (an edge of a deleted node that is gone now) concerns every item that deletes a node; one that still cannot be
 * placed, every item.
 */
function staleItemsOf(
  interrupt: ApprovalInterrupt,
  changed: readonly ChangedDocument[],
  edgesNow: ReadonlyMap<string, { source: string; target: string }>,
): Set<string> {
  const allItems = (interrupt.preview.items ?? []).map((item) => item.itemId);
  if (changed.length === 0 || allItems.length === 0) return new Set();
  const items = reviewItems(interrupt);
  if (!items) return new Set(allItems);
  const stale = new Set<string>();
  for (const part of changed) {
    let found = items.filter((item) =>
      part.kind === 'node'
        ? item.nodeKeys.includes(part.key) ||
          item.changes.edgesToCreate.some((edge) => edge.source === part.key || edge.target === part.key)
        : item.edgeKeys.includes(part.key),
    );
    if (found.length === 0 && part.kind === 'edge') {
      const edge = edgesNow.get(part.key);
      const deleters = items.filter((item) => item.changes.nodeKeysToDelete.length > 0);
      found = edge
        ? deleters.filter((item) =>
            [edge.source, edge.target].some((key) => item.changes.nodeKeysToDelete.includes(key)),
          )
        : deleters;
    }
    for (const item of found.length > 0 ? found : items) stale.add(item.itemId);
  }
  return stale;
}

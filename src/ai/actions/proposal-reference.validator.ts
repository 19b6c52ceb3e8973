import type { Locale } from '../../config/app-config';
import { GraphDataSource } from '../../graph/graph-data-source';
import { ProposedAction } from '../../conversation/proposed-action';
import { toolResultTexts, ToolResultTexts } from '../tools/tool-result.texts';

/** A proposal whose references all resolve (sheet names replaced by their ids), or why it cannot be shown. */
export type ProposalReferenceCheck = { ok: true; action: ProposedAction } | { ok: false; message: string };

type LeafAction = Exclude<ProposedAction, { type: 'batch' }>;

/**
 * Checks what a proposal refers to against the current graph BEFORE a human is asked to approve it:
 * sheets of created nodes and edges, nodes to update, move or delete, edges to delete, the ends of
 * created edges, and the keys the model chose for new nodes and edges. A batch is judged as the
 * GraphChangePlanner applies it: deletions first, then creations, so a node the batch creates can be
 * updated or connected, and a node it deletes cannot. A sheet given by its name (the model sees
 * names in the context) becomes its id when exactly one sheet has that name.
 *
 * Not a guarantee at apply time (the graph may move on meanwhile: the planner still checks), but a
 * proposal that can never apply is sent back to the model as an error it can correct instead (in
 * the AI_LOCALE language).
 */
export class ProposalReferenceValidator {
  private readonly texts: ToolResultTexts;

  constructor(
    private readonly dataSource: GraphDataSource,
    private readonly graphKey: string,
    locale: Locale = 'en',
  ) {
    this.texts = toolResultTexts(locale);
  }

  async validate(action: ProposedAction): Promise<ProposalReferenceCheck> {
    const graph = await this.dataSource.getGraph(this.graphKey);
    if (!graph) return { ok: false, message: this.texts.proposalGraphGone(this.graphKey) };

    const leaves = leavesOf(action);
    const existingNodes = await this.existingNodeKeys(leaves);
    const existingEdges = await this.existingEdgeKeys(leaves);
    const scope = new BatchScope(leaves, existingNodes, existingEdges, this.texts);
    const problems: string[] = [];
    const sheets = new SheetResolver(graph.sheetsList ?? {}, this.texts);
    const resolved = resolveAction(action, sheets, scope, problems);
    if (problems.length > 0) return { ok: false, message: this.texts.proposalRefused(unique(problems).join(' ')) };
    return { ok: true, action: resolved };
  }

  private async existingNodeKeys(leaves: LeafAction[]): Promise<Set<string>> {
    const keys = unique(leaves.flatMap(nodeKeysOf));
    if (keys.length === 0) return new Set();
    return new Set((await this.dataSource.getNodesByKeys(this.graphKey, keys)).map((node) => node._key));
  }

  private async existingEdgeKeys(leaves: LeafAction[]): Promise<Set<string>> {
    const needed = leaves.some(
      (leaf) => leaf.type === 'delete_edge' || (leaf.type === 'create_edge' && leaf.payload.edgeKey !== undefined),
    );
    if (!needed) return new Set();
    // The port has no edge-by-key lookup; a proposal naming an edge is rare enough to read them all.
    return new Set((await this.dataSource.getEdges(this.graphKey)).map((edge) => edge._key));
  }
}

/** What exists once the whole proposal is applied (deletions first, then creations: GraphChangePlanner's order). */
class BatchScope {
  private readonly createdNodes = new Map<string, number>();
  private readonly createdEdges = new Map<string, number>();
  private readonly deletedNodes = new Set<string>();
  private readonly deletedEdges = new Set<string>();

  constructor(
    leaves: LeafAction[],
    private readonly existingNodes: Set<string>,
    private readonly existingEdges: Set<string>,
    private readonly texts: ToolResultTexts,
  ) {
    for (const leaf of leaves) {
      if (leaf.type === 'create_node' && leaf.payload.nodeKey !== undefined)
        count(this.createdNodes, leaf.payload.nodeKey);
      if (leaf.type === 'create_edge' && leaf.payload.edgeKey !== undefined)
        count(this.createdEdges, leaf.payload.edgeKey);
      if (leaf.type === 'delete_node') this.deletedNodes.add(leaf.payload.nodeKey);
      if (leaf.type === 'delete_edge') this.deletedEdges.add(leaf.payload.edgeKey);
    }
  }

  /** Why `nodeKey` cannot be used once the proposal is applied, or null. */
  nodeProblem(nodeKey: string): string | null {
    if (this.createdNodes.has(nodeKey)) return null;
    if (!this.existingNodes.has(nodeKey)) return this.texts.missingNode(nodeKey);
    if (this.deletedNodes.has(nodeKey)) return this.texts.nodeDeletedByProposal(nodeKey);
    return null;
  }

  existingNodeProblem(nodeKey: string): string | null {
    return this.existingNodes.has(nodeKey) ? null : this.texts.missingNode(nodeKey);
  }

  newNodeKeyProblem(nodeKey: string): string | null {
    if ((this.createdNodes.get(nodeKey) ?? 0) > 1) return this.texts.nodeCreatedTwice(nodeKey);
    if (this.existingNodes.has(nodeKey) && !this.deletedNodes.has(nodeKey)) return this.texts.nodeExists(nodeKey);
    return null;
  }

  existingEdgeProblem(edgeKey: string): string | null {
    return this.existingEdges.has(edgeKey) ? null : this.texts.missingEdge(edgeKey);
  }

  newEdgeKeyProblem(edgeKey: string): string | null {
    if ((this.createdEdges.get(edgeKey) ?? 0) > 1) return this.texts.edgeCreatedTwice(edgeKey);
    if (this.existingEdges.has(edgeKey) && !this.deletedEdges.has(edgeKey)) return this.texts.edgeExists(edgeKey);
    return null;
  }
}

/** Sheet ids of the graph; a name stands for its sheet when no other sheet has it. */
class SheetResolver {
  constructor(
    private readonly sheetsList: Record<string, string>,
    private readonly texts: ToolResultTexts,
  ) {}

  resolve(sheet: string, problems: string[]): string {
    if (Object.hasOwn(this.sheetsList, sheet)) return sheet;
    const entries = Object.entries(this.sheetsList);
    const named = entries.filter(([, name]) => name === sheet);
    const matches = named.length > 0 ? named : entries.filter(([, name]) => normalize(name) === normalize(sheet));
    if (matches.length === 1) return matches[0][0];
    const valid = entries.map(([id, name]) => `"${id}" (${name})`).join(', ');
    const known = valid.length > 0 ? this.texts.validSheets(valid) : this.texts.noSheets;
    const problem =
      matches.length > 1
        ? this.texts.ambiguousSheet(sheet, matches.map(([id]) => `"${id}"`).join(', '))
        : this.texts.missingSheet(sheet);
    problems.push(`${problem} ${known}`);
    return sheet;
  }
}

function resolveAction(
  action: ProposedAction,
  sheets: SheetResolver,
  scope: BatchScope,
  problems: string[],
): ProposedAction {
  const note = (problem: string | null) => {
    if (problem) problems.push(problem);
  };
  switch (action.type) {
    case 'create_node': {
      if (action.payload.nodeKey !== undefined) note(scope.newNodeKeyProblem(action.payload.nodeKey));
      return { ...action, payload: { ...action.payload, sheet: sheets.resolve(action.payload.sheet, problems) } };
    }
    case 'create_edge': {
      const { edgeKey, sourceKey, targetKey } = action.payload;
      if (edgeKey !== undefined) note(scope.newEdgeKeyProblem(edgeKey));
      note(scope.nodeProblem(sourceKey));
      note(scope.nodeProblem(targetKey));
      return { ...action, payload: { ...action.payload, sheet: sheets.resolve(action.payload.sheet, problems) } };
    }
    case 'update_node':
    case 'move_node':
      note(scope.nodeProblem(action.payload.nodeKey));
      return action;
    case 'delete_node':
      note(scope.existingNodeProblem(action.payload.nodeKey));
      return action;
    case 'delete_edge':
      note(scope.existingEdgeProblem(action.payload.edgeKey));
      return action;
    case 'batch':
      return {
        ...action,
        payload: { actions: action.payload.actions.map((sub) => resolveAction(sub, sheets, scope, problems)) },
      };
  }
}

function leavesOf(action: ProposedAction): LeafAction[] {
  return action.type === 'batch' ? action.payload.actions.flatMap(leavesOf) : [action];
}

function nodeKeysOf(leaf: LeafAction): string[] {
  switch (leaf.type) {
    case 'create_node':
      return leaf.payload.nodeKey !== undefined ? [leaf.payload.nodeKey] : [];
    case 'create_edge':
      return [leaf.payload.sourceKey, leaf.payload.targetKey];
    case 'update_node':
    case 'move_node':
    case 'delete_node':
      return [leaf.payload.nodeKey];
    case 'delete_edge':
      return [];
  }
}

function count(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function normalize(name: string): string {
  return name.trim().toLowerCase();
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

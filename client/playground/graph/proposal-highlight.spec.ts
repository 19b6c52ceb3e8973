import { batchInterrupt } from '../../test/graph-view.fixtures';
import { reviewItems } from '../../src/proposal-items';
import { highlightProposal, markLabel, withDecisions } from './proposal-highlight';

describe(highlightProposal.name, () => {
  it('sorts a batch into created nodes and edges (with their preview), changed, moved and deleted elements', () => {
    const highlight = highlightProposal(batchInterrupt());
    expect(highlight.sheetId).toBe('0');
    expect([...highlight.createdNodes.keys()]).toEqual(['log-errors', 'team-averages']);
    expect(highlight.createdNodes.get('log-errors')).toMatchObject({
      node: { posX: 820, posY: 420, type: 'log-node' },
      mark: { highlight: 'added', changes: [{ effect: 'create', summary: 'New log-node node "log-errors"' }] },
    });
    expect(highlight.createdEdges.get('fetch-api-to-log-errors')).toMatchObject({
      edge: { source: 'fetch-api', sourceHandle: 'R-1', target: 'log-errors' },
      mark: { highlight: 'added' },
    });
    expect(highlight.nodes.get('filter-active')).toMatchObject({
      highlight: 'changed',
      changes: [
        { effect: 'update', summary: 'Node "filter-active": data.minGames changed', details: ['data.minGames → 20'] },
      ],
    });
    expect(highlight.nodes.get('root')).toMatchObject({ highlight: 'changed', changes: [{ effect: 'move' }] });
    expect(highlight.moves.get('root')).toEqual({ x: 300, y: 300 });
    expect(highlight.nodes.get('error-handler')).toMatchObject({ highlight: 'deleted' });
    expect(highlight.edges.size).toBe(0);
  });

  it('keeps the strongest highlight of an element changed several ways, and gives a node the batch creates then moves to its ghost', () => {
    const interrupt = batchInterrupt();
    interrupt.preview.instructions.push(
      { nodeKey: 'root', op: 'set', path: ['process'], value: '// new' },
      { nodeKey: 'log-errors', op: 'set', path: ['posX'], value: 900 },
      { nodeKey: 'filter-active', op: 'set', path: ['posY'], value: 10 },
    );
    interrupt.preview.nodeKeysToDelete.push('filter-active');
    const highlight = highlightProposal(interrupt);
    expect(highlight.nodes.get('filter-active')?.highlight).toBe('deleted');
    expect(
      highlight.nodes
        .get('root')
        ?.changes.map((change) => change.effect)
        .sort(),
    ).toEqual(['move', 'update']);
    expect(highlight.nodes.has('log-errors')).toBe(false);
    expect(highlight.createdNodes.get('log-errors')?.mark.changes.map((change) => change.effect)).toEqual([
      'create',
      'move',
    ]);
    // A move that gives one coordinate leaves the other where it is.
    expect(highlight.moves.get('log-errors')).toEqual({ x: 900, y: undefined });
  });

  it('highlights nothing for a proposal whose preview changes nothing', () => {
    const interrupt = batchInterrupt();
    interrupt.preview = {
      ...interrupt.preview,
      nodesToCreate: [],
      edgesToCreate: [],
      instructions: [],
      nodeKeysToDelete: [],
    };
    const highlight = highlightProposal(interrupt);
    expect(
      [highlight.nodes, highlight.edges, highlight.createdNodes, highlight.createdEdges].map((map) => map.size),
    ).toEqual([0, 0, 0, 0]);
  });
});

describe(markLabel.name, () => {
  const change = (effect: 'create' | 'update' | 'move' | 'delete') => ({
    effect,
    subject: 'node' as const,
    key: 'n',
    summary: '',
    details: [],
  });

  it('names the mark in a word or two, with the decision once there is one', () => {
    expect(markLabel({ highlight: 'added', changes: [change('create')] })).toBe('New');
    expect(markLabel({ highlight: 'changed', changes: [change('update')] })).toBe('Changed');
    expect(markLabel({ highlight: 'changed', changes: [change('move')] })).toBe('Moved');
    expect(markLabel({ highlight: 'changed', changes: [change('move'), change('update')] })).toBe('Changed, moved');
    expect(markLabel({ highlight: 'deleted', changes: [change('delete')] })).toBe('Deleted');
    expect(markLabel({ highlight: 'deleted', changes: [change('delete')], decision: 'declined' })).toBe(
      'Deleted · declined',
    );
  });
});

describe(withDecisions.name, () => {
  it("draws the reviewer's choice: what approved items touch accepted, what only declined ones touch declined", () => {
    const interrupt = batchInterrupt();
    const highlight = highlightProposal(interrupt);
    const items = reviewItems(interrupt)!;
    expect(withDecisions(highlight, items, new Set(items.map((item) => item.itemId)))).toBe(highlight);

    const decided = withDecisions(highlight, items, new Set(['i1', 'i3', 'i6']));
    expect(decided.createdNodes.get('log-errors')!.mark.decision).toBe('accepted');
    expect(decided.createdEdges.get('fetch-api-to-log-errors')!.mark.decision).toBe('declined');
    expect(decided.nodes.get('filter-active')!.decision).toBe('accepted');
    expect(decided.nodes.get('root')!.decision).toBe('declined');
    expect(decided.nodes.get('error-handler')!.decision).toBe('declined');
    expect(markLabel(decided.nodes.get('error-handler')!)).toBe('Deleted · declined');
    // The highlight it was given is left as it was.
    expect(highlight.nodes.get('root')!.decision).toBeUndefined();
  });
});

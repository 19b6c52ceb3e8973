import { NodeNeighborhood } from '../graph/graph-data-source';
import { plainEdge, plainNode } from '../../test/support/plain-graph-parts';
import { askedSideNeighbors, placeAfterAnchor } from './asked-side-neighbors';
import { SelectedNode } from './context-node.selector';

const node = plainNode;
const edge = plainEdge;
const search = (key: string): SelectedNode => ({ node: node(key), origin: 'search', score: 1 });
const keys = (selected: SelectedNode[]) => selected.map((entry) => entry.node._key);

describe(askedSideNeighbors.name, () => {
  // p → a; a → b, a → c, a → d, a → e; b → f.
  const hood: NodeNeighborhood = {
    nodes: ['a', 'p', 'b', 'c', 'd', 'e', 'f'].map(node),
    edges: [edge('p', 'a'), edge('a', 'b'), edge('a', 'c'), edge('a', 'd'), edge('a', 'e'), edge('b', 'f')],
  };

  it('gives the nodes one edge away on the asked side, in edge order, at most 3 by default', () => {
    expect(askedSideNeighbors('a', hood, 'downstream').map((entry) => entry._key)).toEqual(['b', 'c', 'd']);
    expect(askedSideNeighbors('a', hood, 'downstream', 5).map((entry) => entry._key)).toEqual(['b', 'c', 'd', 'e']);
    expect(askedSideNeighbors('a', hood, 'upstream').map((entry) => entry._key)).toEqual(['p']);
  });

  it('gives nothing for a node with no edge on that side', () => {
    expect(askedSideNeighbors('f', hood, 'downstream')).toEqual([]);
  });
});

describe(placeAfterAnchor.name, () => {
  it('moves selected followers and brings new ones right after the anchor, cut back to maxNodes', () => {
    const selected = ['h1', 'a', 'h2', 'h3', 'b'].map(search);
    const placed = placeAfterAnchor(selected, 'a', [node('b'), node('x')], 0, 5);
    expect(keys(placed)).toEqual(['h1', 'a', 'b', 'x', 'h2']);
    // b keeps its origin and score; x comes as a neighbour.
    expect(placed[2]).toEqual(search('b'));
    expect(placed[3]).toEqual({ node: node('x'), origin: 'neighbor' });
  });

  it('never places a follower before the pinned mentions', () => {
    const selected = [
      { node: node('a'), origin: 'mention' as const },
      { node: node('m'), origin: 'mention' as const },
    ];
    expect(keys(placeAfterAnchor([...selected, search('h')], 'a', [node('b')], 2, 4))).toEqual(['a', 'm', 'b', 'h']);
  });

  it('changes nothing when the anchor is not selected or there is no follower', () => {
    const selected = ['h1', 'h2'].map(search);
    expect(placeAfterAnchor(selected, 'a', [node('b')], 0, 5)).toEqual(selected);
    expect(placeAfterAnchor(selected, 'h1', [], 0, 5)).toEqual(selected);
  });
});

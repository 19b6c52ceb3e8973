import { GraphNode } from '../graph/graph.types';
import { embeddingTextHash } from './embedding-text-hash';
import { createNodeEmbeddingText } from './node-embedding-text';
import { planNodeEmbedding } from './node-embedding.planner';

const node: GraphNode = {
  _key: 'fetch-api',
  graphKey: 'g',
  type: 'api-call',
  sheet: '0',
  posX: 0,
  posY: 0,
  process: 'fetch(url)',
};
const hash = embeddingTextHash(createNodeEmbeddingText(node));

describe(planNodeEmbedding.name, () => {
  it('embeds a node without a vector, with its text and the text hash', () => {
    expect(planNodeEmbedding(node, undefined, undefined, 'm')).toEqual({
      action: 'embed',
      nodeKey: 'fetch-api',
      text: createNodeEmbeddingText(node),
      hash,
    });
    expect(planNodeEmbedding(node, undefined, { nodeKey: 'fetch-api', model: null, hash: null }, 'm').action).toBe(
      'embed',
    );
  });

  it('skips a node whose vector has this model and this text hash, even moved or resized', () => {
    const moved = { ...node, posX: 500, size: { width: 10, height: 10 } };
    expect(planNodeEmbedding(moved, undefined, { nodeKey: 'fetch-api', model: 'm', hash }, 'm')).toEqual({
      action: 'skip',
      nodeKey: 'fetch-api',
      reason: 'unchanged',
    });
  });

  it('embeds again when the text changed or the vector is of another model, and always with force', () => {
    expect(
      planNodeEmbedding({ ...node, process: 'other()' }, undefined, { nodeKey: 'fetch-api', model: 'm', hash }, 'm')
        .action,
    ).toBe('embed');
    expect(planNodeEmbedding(node, undefined, { nodeKey: 'fetch-api', model: 'other-model', hash }, 'm').action).toBe(
      'embed',
    );
    expect(planNodeEmbedding(node, undefined, { nodeKey: 'fetch-api', model: 'm', hash }, 'm', true).action).toBe(
      'embed',
    );
  });

  it('skips a node with nothing to embed', () => {
    const blank = { _key: 'x', graphKey: 'g', type: '', sheet: '0', posX: 0, posY: 0 } as GraphNode;
    expect(planNodeEmbedding(blank, undefined, undefined, 'm', true)).toEqual({
      action: 'skip',
      nodeKey: 'x',
      reason: 'empty',
    });
  });
});

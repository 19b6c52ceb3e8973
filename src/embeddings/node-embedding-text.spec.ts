import { GraphNode, NodeTypeConfig } from '../graph/graph.types';
import { createNodeEmbeddingText, NODE_EMBEDDING_TEXT_MAX_CHARS } from './node-embedding-text';

function node(overrides: Partial<GraphNode> = {}): GraphNode {
  return { _key: 'fetch-api', graphKey: 'g1', type: 'httpRequest', sheet: '0', posX: 10, posY: 20, ...overrides };
}

describe(createNodeEmbeddingText.name, () => {
  const config: NodeTypeConfig = {
    _key: 'httpRequest',
    workspace: 'default',
    displayName: 'HTTP Request',
    category: 'network',
    description: 'Calls any REST API.',
  };

  it('joins type (with its display name, category and description), key, process and data', () => {
    const text = createNodeEmbeddingText(
      node({
        process: '  const players = await fetch(url);  ',
        data: { url: 'https://api.example/players', pageSize: 100 },
      }),
      config,
    );
    expect(text).toBe(
      [
        'type: httpRequest - HTTP Request (network) - Calls any REST API.',
        'node: fetch-api',
        'process:\nconst players = await fetch(url);',
        'data:\npageSize: 100\nurl: https://api.example/players',
      ].join('\n'),
    );
  });

  it('uses the bare type when the config is unknown or belongs to another type', () => {
    expect(createNodeEmbeddingText(node())).toBe('type: httpRequest\nnode: fetch-api');
    expect(createNodeEmbeddingText(node(), { ...config, _key: 'code' })).toBe('type: httpRequest\nnode: fetch-api');
  });

  it('lists nested data values by their own key, whatever the key order, without booleans, nulls or opaque ids', () => {
    const data = {
      options: { retry: true, note: null },
      rules: [
        { operation: 'equals', value: 'PASS' },
        { operation: 'gt', value: 20 },
      ],
      id: '547e8934-e6f2-47f0-b8a0-c60bd9d8a0c3',
      tableId: 'yOfWQK9CB3soT3Ai',
      model: 'text-embedding-3-small',
      empty: '   ',
    };
    const reordered = {
      model: data.model,
      empty: data.empty,
      tableId: data.tableId,
      id: data.id,
      rules: data.rules,
      options: data.options,
    };
    const text = createNodeEmbeddingText(node({ data }));
    expect(text).toBe(
      'type: httpRequest\nnode: fetch-api\ndata:\nmodel: text-embedding-3-small\noperation: equals\nvalue: PASS\noperation: gt\nvalue: 20',
    );
    expect(createNodeEmbeddingText(node({ data: reordered }))).toBe(text);
    expect(createNodeEmbeddingText(node({ data: 'a plain string' }))).toContain('data:\ndata: a plain string');
  });

  it('does not depend on position, size or handles', () => {
    const original = node({ data: { url: 'https://x' } });
    const moved = {
      ...original,
      posX: 999,
      posY: -5,
      size: { width: 400, height: 90 },
      handles: { L: { position: 'fix' as const, point: [] } },
    };
    expect(createNodeEmbeddingText(moved)).toBe(createNodeEmbeddingText(original));
  });

  it(`caps the text at ${NODE_EMBEDDING_TEXT_MAX_CHARS} characters without splitting a surrogate pair`, () => {
    const long = createNodeEmbeddingText(node({ process: 'x'.repeat(20_000), data: { note: 'y'.repeat(50_000) } }));
    expect(long).toHaveLength(NODE_EMBEDDING_TEXT_MAX_CHARS);

    const prefix = 'type: httpRequest\nnode: fetch-api\nprocess:\n';
    const emojiAtTheCut = 'a'.repeat(NODE_EMBEDDING_TEXT_MAX_CHARS - prefix.length - 1) + '😀😀';
    const cut = createNodeEmbeddingText(node({ process: emojiAtTheCut }));
    expect(cut).toHaveLength(NODE_EMBEDDING_TEXT_MAX_CHARS - 1);
    expect(cut.endsWith('a')).toBe(true);
    expect(Buffer.from(cut, 'utf8').toString('utf8')).toBe(cut);
  });

  it("gives '' for a node with nothing to embed", () => {
    expect(
      createNodeEmbeddingText(node({ type: '', process: '  ', data: { flag: true, nothing: null, list: [] } })),
    ).toBe('');
    expect(createNodeEmbeddingText(node({ type: '' }))).toBe('');
    expect(createNodeEmbeddingText(node({ type: '', process: 'next(0)' }))).toBe('node: fetch-api\nprocess:\nnext(0)');
  });
});

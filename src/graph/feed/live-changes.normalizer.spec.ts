import { AppError } from '../../errors/app-error';
import { normalizeLiveChanges } from './live-changes.normalizer';

class NodeLike {
  constructor(
    readonly _key: string,
    readonly type = 'filter',
    readonly graphKey?: string,
  ) {}
  readonly sheet = '0';
  readonly posX = 0;
  readonly posY = 0;
  embedding? = [0.1];
  embeddingModel? = 'm';
}

describe(normalizeLiveChanges.name, () => {
  it('turns DTOs into plain documents of the path graph without embedding fields, each key once (last wins)', () => {
    const changes = normalizeLiveChanges('g', {
      upsertNodes: [new NodeLike('a', 'old'), new NodeLike('b'), new NodeLike('a', 'new', 'g')],
      deleteNodes: ['c', 'c'],
      deleteEdges: ['e'],
    });
    expect(changes.upsertNodes).toEqual([
      { _key: 'b', type: 'filter', graphKey: 'g', sheet: '0', posX: 0, posY: 0 },
      { _key: 'a', type: 'new', graphKey: 'g', sheet: '0', posX: 0, posY: 0 },
    ]);
    expect(Object.getPrototypeOf(changes.upsertNodes[0])).toBe(Object.prototype);
    expect(changes.deleteNodes).toEqual(['c']);
    expect(changes.upsertEdges).toEqual([]);
    expect(changes.deleteEdges).toEqual(['e']);
  });

  it('refuses a document of another graph and a key both upserted and deleted', () => {
    expect(() => normalizeLiveChanges('g', { upsertNodes: [new NodeLike('a', 'filter', 'other')] })).toThrow(
      /differs from the graph of the path/,
    );
    let error: unknown;
    try {
      normalizeLiveChanges('g', { upsertNodes: [new NodeLike('a')], deleteNodes: ['a'] });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'bad_request', details: { nodeKey: 'a' } });
  });
});

import { graphChangeSet } from '../../graph/graph-change-set';
import { ActionConversionResult } from '../../conversation/action-conversion-result';
import { actionsExecutedEvent } from './actions-executed.event';

const SHEETS = { '0': 'main', '1': 'data-processing' };

const preview = (sheetId: string, parts: Parameters<typeof graphChangeSet>[0]): ActionConversionResult => ({
  ...graphChangeSet(parts),
  sheetId,
});

const createTwoNodesAndAnEdge = preview('0', {
  nodesToCreate: [
    { _key: 'log-errors', graphKey: 'g', type: 'log-node', sheet: '0', posX: 0, posY: 0 },
    { _key: 'notify', graphKey: 'g', type: 'api-call', sheet: '0', posX: 0, posY: 0 },
  ],
  edgesToCreate: [
    {
      _key: 'e1',
      graphKey: 'g',
      sheet: '0',
      source: 'fetch-api',
      sourceHandle: 'R-1',
      target: 'log-errors',
      targetHandle: 'L-0',
    },
  ],
});

describe(actionsExecutedEvent.name, () => {
  it('counts what an applied series did, per node and edge, on the sheets it touched', () => {
    expect(
      actionsExecutedEvent({
        appliedBy: 'server',
        sheetNames: SHEETS,
        actions: [{ preview: createTwoNodesAndAnEdge }],
      }),
    ).toEqual({
      type: 'ACTIONS_EXECUTED',
      summary: 'Created 2 nodes and 1 edge on sheet main',
      results: [
        { ok: true, label: 'create_node log-errors', detail: 'type log-node' },
        { ok: true, label: 'create_node notify', detail: 'type api-call' },
        { ok: true, label: 'create_edge e1', detail: 'fetch-api:R-1 → log-errors:L-0' },
      ],
    });
  });

  it('tells moves from updates and lists deletions, across sheets', () => {
    const event = actionsExecutedEvent({
      appliedBy: 'server',
      sheetNames: SHEETS,
      actions: [
        {
          preview: preview('1', {
            instructions: [
              { nodeKey: 'sort-stats', op: 'set', path: ['posX'], value: 1 },
              { nodeKey: 'sort-stats', op: 'set', path: ['posY'], value: 2 },
              { nodeKey: 'filter-active', op: 'set', path: ['data', 'minGames'], value: 5 },
            ],
          }),
        },
        { preview: preview('0', { nodeKeysToDelete: ['disconnected-note'], edgeKeysToDelete: ['e9'] }) },
      ],
    });
    expect(event.summary).toBe(
      'Updated 1 node, moved 1 node, deleted 1 node and 1 edge on sheets data-processing and main',
    );
    expect(event.results).toEqual([
      { ok: true, label: 'move_node sort-stats' },
      { ok: true, label: 'update_node filter-active', detail: 'data.minGames' },
      { ok: true, label: 'delete_node disconnected-note' },
      { ok: true, label: 'delete_edge e9' },
    ]);
  });

  it('marks the items of a proposal that failed with the reason, and says so in the summary', () => {
    const failed = { preview: preview('0', { nodeKeysToDelete: ['ghost'] }), error: 'Node "ghost" does not exist' };
    const partly = actionsExecutedEvent({
      appliedBy: 'server',
      sheetNames: SHEETS,
      actions: [{ preview: createTwoNodesAndAnEdge }, failed],
    });
    expect(partly.summary).toBe('Created 2 nodes and 1 edge on sheet main; 1 change failed');
    expect(partly.results.at(-1)).toEqual({
      ok: false,
      label: 'delete_node ghost',
      detail: 'Node "ghost" does not exist',
    });

    const none = actionsExecutedEvent({ appliedBy: 'server', sheetNames: SHEETS, actions: [failed] });
    expect(none.summary).toBe('Nothing applied: 1 change failed on sheet main');
  });

  it('says the series was sent to the editor when the client applies it (HITL_APPLY=client)', () => {
    expect(
      actionsExecutedEvent({ appliedBy: 'client', sheetNames: SHEETS, actions: [{ preview: createTwoNodesAndAnEdge }] })
        .summary,
    ).toBe('Sent to the editor to apply: create 2 nodes and 1 edge on sheet main');
  });

  it('names a sheet missing from the sheets list by its id', () => {
    expect(
      actionsExecutedEvent({
        appliedBy: 'server',
        sheetNames: {},
        actions: [{ preview: preview('7', { edgeKeysToDelete: ['e'] }) }],
      }).summary,
    ).toBe('Deleted 1 edge on sheet 7');
  });
});

import { describeChanged, proposalOutcomeOf } from './proposal-outcome';
import { describeRefused } from './revert-outcome';

describe(proposalOutcomeOf.name, () => {
  it('reads a stale proposal with what changed since, and a batch approved in part with its items', () => {
    expect(
      proposalOutcomeOf(
        JSON.stringify({
          status: 'stale',
          message: 'Not applied: the graph changed since you made this proposal.',
          changed: [
            { kind: 'node', key: 'filter-active', change: 'modified' },
            { kind: 'edge', key: 'e1', change: 'deleted' },
            { kind: 'node', key: 'bad', change: 'exploded' },
          ],
        }),
      ),
    ).toEqual({
      status: 'stale',
      message: 'Not applied: the graph changed since you made this proposal.',
      changed: [
        { kind: 'node', key: 'filter-active', change: 'modified' },
        { kind: 'edge', key: 'e1', change: 'deleted' },
      ],
    });
    expect(
      proposalOutcomeOf(
        JSON.stringify({
          status: 'approved',
          message: 'Applied in part',
          appliedItems: [{ itemId: 'i1', description: 'New node' }],
          declinedItems: [{ itemId: 'i2', description: 'New edge' }, { itemId: 3 }],
        }),
      ),
    ).toEqual({
      status: 'approved',
      message: 'Applied in part',
      appliedItems: [{ itemId: 'i1', description: 'New node' }],
      declinedItems: [{ itemId: 'i2', description: 'New edge' }],
    });
  });

  it("is null for what is not a proposal's result", () => {
    expect(proposalOutcomeOf(undefined)).toBeNull();
    expect(proposalOutcomeOf('plain text')).toBeNull();
    expect(proposalOutcomeOf('{not json')).toBeNull();
    expect(proposalOutcomeOf('{"_key":"fetch-api"}')).toBeNull();
    expect(proposalOutcomeOf('{"status":"answered","answer":"yes"}')).toBeNull();
  });
});

describe(describeChanged.name, () => {
  it('says what changed since, one line per node or edge', () => {
    expect(
      describeChanged([
        { kind: 'node', key: 'filter-active', change: 'modified' },
        { kind: 'edge', key: 'e1', change: 'deleted' },
        { kind: 'node', key: 'log-x', change: 'created' },
      ]),
    ).toEqual(['Node "filter-active" was changed', 'Edge "e1" was deleted', 'Node "log-x" was created']);
  });
});

describe(describeRefused.name, () => {
  it('says why each part of a revert was kept', () => {
    expect(
      describeRefused([
        { kind: 'node', key: 'filter-active', reason: 'changed_since' },
        { kind: 'edge', key: 'e1', reason: 'depends_on_refused' },
      ]),
    ).toEqual([
      'Node "filter-active" was kept as it is: it was changed after the assistant changed it',
      'Edge "e1" was kept as it is: it depends on a part that was kept',
    ]);
  });
});

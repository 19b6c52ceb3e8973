import { batchInterrupt } from '../test/graph-view.fixtures';
import { describeItem } from './protocol';
import { reviewItems, unmetNeeds } from './proposal-items';

describe(reviewItems.name, () => {
  it('cuts a batch preview back into its items: each with exactly its part, the keys it touches, and the words the service gave it', () => {
    const interrupt = batchInterrupt();
    const items = reviewItems(interrupt)!;
    expect(items.map((item) => [item.itemId, item.nodeKeys, item.edgeKeys])).toEqual([
      ['i1', ['log-errors'], []],
      ['i2', [], ['fetch-api-to-log-errors']],
      ['i3', ['filter-active'], []],
      ['i4', ['root'], []],
      ['i5', ['error-handler'], []],
      ['i6', ['team-averages'], []],
    ]);
    expect(items[3].changes.instructions.map((instruction) => instruction.path)).toEqual([['posX'], ['posY']]);
    expect(items[5].changes.sheetId).toBe('1');
    // The same wording code on both sides: each part, described, is the item's description.
    expect(items.map((item) => describeItem(item.changes))).toEqual(
      interrupt.preview.items!.map((item) => item.description),
    );
  });

  it('finds generated keys (no key in the action) by their place in the preview', () => {
    const interrupt = batchInterrupt();
    const [createLog] = (interrupt.proposedAction as { payload: { actions: Array<{ payload: { nodeKey?: string } }> } })
      .payload.actions;
    delete createLog.payload.nodeKey;
    expect(reviewItems(interrupt)![0].nodeKeys).toEqual(['log-errors']);
  });

  it("gives up (null) on a single proposal and on a preview that does not cut into the batch's actions", () => {
    const single = batchInterrupt();
    delete single.preview.items;
    expect(reviewItems(single)).toBeNull();

    const extra = batchInterrupt();
    extra.preview.instructions.push({ nodeKey: 'root', op: 'set', path: ['process'], value: '' });
    expect(reviewItems(extra)).toBeNull();

    const renamed = batchInterrupt();
    renamed.preview.nodesToCreate[0] = { ...renamed.preview.nodesToCreate[0], _key: 'another' };
    expect(reviewItems(renamed)).toBeNull();

    const fewer = batchInterrupt();
    fewer.preview.items = fewer.preview.items!.slice(1);
    expect(reviewItems(fewer)).toBeNull();
  });
});

describe(unmetNeeds.name, () => {
  it('names an approved item that needs what only a declined item creates, as the service would refuse it', () => {
    const items = reviewItems(batchInterrupt())!;
    expect(unmetNeeds(items, new Set(['i1', 'i2', 'i3']))).toEqual([]);
    expect(unmetNeeds(items, new Set(['i2', 'i3']))).toEqual([
      { itemId: 'i2', kind: 'node', key: 'log-errors', creator: 'i1' },
    ]);
    expect(unmetNeeds(items, new Set(['i1']))).toEqual([]);
  });
});

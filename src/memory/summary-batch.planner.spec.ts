import { planSummaryBatches } from './summary-batch.planner';

const items = (sizes: number[]) => {
  let offset = 0;
  return sizes.map((size) => {
    const item = { charRange: [offset, offset + size] as [number, number], size };
    offset += size;
    return item;
  });
};

describe(planSummaryBatches.name, () => {
  it('cuts the uncovered items into the shortest runs of at least N characters, leaving the rest for later', () => {
    const all = items([3000, 3000, 3000, 6000, 2000, 1000]);
    expect(planSummaryBatches(all, 0, 8000)).toEqual([all.slice(0, 3), all.slice(3, 5)]);
    expect(planSummaryBatches(all, 9000, 8000)).toEqual([all.slice(3, 5)]);
    expect(planSummaryBatches(all, 17000, 8000)).toEqual([]);
  });

  it('gives an item larger than N a batch of its own', () => {
    const all = items([9000, 100]);
    expect(planSummaryBatches(all, 0, 8000)).toEqual([[all[0]]]);
  });
});

import { memoryRecord } from '../../test/support/memory-records';
import { planHistoryWindow } from './history-window.planner';
import { MemoryRecord } from './memory-record';

const countTokens = (text: string) => text.length;
/** Ten closed turns of 100 tokens and 1,000 characters each, then the current question (50 tokens). */
const turns = [
  ...Array.from({ length: 10 }, (_, index) => ({ turnId: `t${index}`, tokens: 100 })),
  { turnId: 'current', tokens: 50 },
];
const turnEnds = new Map(Array.from({ length: 10 }, (_, index) => [`t${index}`, (index + 1) * 1000]));
const summary = (level: 1 | 2, start: number, end: number, text = 'x'.repeat(34)): MemoryRecord =>
  memoryRecord({ workspace: 'w', threadId: 't', level, charRange: [start, end], text });
const plan = (budget: number, summaries: MemoryRecord[], summaryMaxTokens = 10_000) =>
  planHistoryWindow({ turns, turnEnds, summaries, budget, summaryMaxTokens, countTokens });

describe(planHistoryWindow.name, () => {
  it('sends everything when the history fits', () => {
    expect(plan(1050, [summary(1, 0, 3000)])).toEqual({ firstKept: 0, summaries: [], fits: true });
  });

  it('cuts at the end of the earliest level-1 summary that makes the rest fit, with the summaries of what is cut', () => {
    const l1 = [summary(1, 0, 3000), summary(1, 3000, 6000), summary(1, 6000, 8000)];
    // A summary shows as 50 tokens. Cut after 3 turns: 750 + 50 = 800 tokens; after 6: 450 + 100.
    expect(plan(800, l1)).toEqual({ firstKept: 3, summaries: [l1[0]], fits: true });
    expect(plan(799, l1)).toEqual({ firstKept: 6, summaries: [l1[0], l1[1]], fits: true });
  });

  it('keeps the same cut while the history grows within it, then moves it by a whole summary: the prefix stays stable for caches', () => {
    const l1 = [summary(1, 0, 3000), summary(1, 3000, 6000)];
    const cutAfter = (closedTurns: number) =>
      planHistoryWindow({
        turns: [...turns.slice(0, closedTurns), { turnId: 'current', tokens: 50 }],
        turnEnds,
        summaries: l1,
        budget: 650,
        summaryMaxTokens: 10_000,
        countTokens,
      }).firstKept;
    expect([7, 8, 9, 10].map(cutAfter)).toEqual([3, 3, 6, 6]);
  });

  it('shows the level-2 summaries, then the level-1 summaries after them, up to the cut', () => {
    const l1 = [summary(1, 0, 3000), summary(1, 3000, 6000), summary(1, 6000, 8000)];
    const l2 = summary(2, 0, 6000);
    expect(plan(350, [...l1, l2])).toEqual({ firstKept: 8, summaries: [l2, l1[2]], fits: true });
  });

  it('leaves the oldest summaries out beyond their own budget', () => {
    const l1 = [summary(1, 0, 3000), summary(1, 3000, 6000), summary(1, 6000, 8000)];
    expect(plan(300, l1, 60).summaries).toEqual([l1[2]]);
  });

  it('falls back to the earliest turn that fits while no summary does, and says when nothing fits', () => {
    expect(plan(400, [])).toEqual({ firstKept: 7, summaries: [], fits: true });
    expect(plan(40, [])).toEqual({ firstKept: 10, summaries: [], fits: false });
  });
});

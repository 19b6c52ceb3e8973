/** Something a summary covers: a turn (level 1) or a level-1 summary (level 2), with its range and size. */
export interface SummarizableItem {
  charRange: readonly [number, number];
  /** Characters that count towards the next summary (a turn's memory text, a level-1 summary's text). */
  size: number;
}

/**
 * The batches the next summaries of one level should cover (a summary every N characters):
 * the items not covered yet (starting at or after `coveredUpTo`), cut into consecutive batches, each
 * the shortest run whose sizes add up to at least `everyChars`. What is left (less than `everyChars`)
 * waits for more. Pure: the same items and cursor always give the same batches, so two instances
 * plan the same summaries (and their ids collide on purpose).
 */
export function planSummaryBatches<T extends SummarizableItem>(
  items: readonly T[],
  coveredUpTo: number,
  everyChars: number,
): T[][] {
  const batches: T[][] = [];
  let batch: T[] = [];
  let size = 0;
  for (const item of items) {
    if (item.charRange[0] < coveredUpTo) continue;
    batch.push(item);
    size += item.size;
    if (size >= everyChars) {
      batches.push(batch);
      batch = [];
      size = 0;
    }
  }
  return batches;
}

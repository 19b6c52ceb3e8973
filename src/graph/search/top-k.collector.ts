/**
 * Keeps the `limit` best (item, score) pairs seen, with a bounded min-heap: O(n log k) over n
 * candidates instead of sorting them all. Equal scores rank by ascending item, or by ascending
 * `tieRanks[item]` when given, whatever the order items are offered in, so results are deterministic.
 */
export class TopKCollector {
  private readonly items: number[] = [];
  private readonly scores: number[] = [];

  constructor(
    private readonly limit: number,
    private readonly tieRanks?: ArrayLike<number>,
  ) {}

  /** Lowest score still kept once the heap is full; anything below it cannot enter (at it, only by winning the tie). */
  get threshold(): number {
    return this.items.length < this.limit ? -Infinity : this.scores[0];
  }

  offer(item: number, score: number): void {
    if (this.limit <= 0) return;
    if (this.items.length < this.limit) {
      this.items.push(item);
      this.scores.push(score);
      this.siftUp(this.items.length - 1);
      return;
    }
    if (!this.ranksBefore(item, score, this.items[0], this.scores[0])) return;
    this.items[0] = item;
    this.scores[0] = score;
    this.siftDown(0);
  }

  /** Best first; ties by ascending item (or tie rank). */
  result(): Array<{ item: number; score: number }> {
    return this.items
      .map((item, index) => ({ item, score: this.scores[index] }))
      .sort((left, right) => right.score - left.score || this.tieRank(left.item) - this.tieRank(right.item));
  }

  /** True when (a) should be kept over (b): higher score, or equal score and lower item (or tie rank). */
  private ranksBefore(itemA: number, scoreA: number, itemB: number, scoreB: number): boolean {
    return scoreA > scoreB || (scoreA === scoreB && this.tieRank(itemA) < this.tieRank(itemB));
  }

  private tieRank(item: number): number {
    return this.tieRanks ? this.tieRanks[item] : item;
  }

  // The heap root is the WORST kept entry.
  private isWorse(indexA: number, indexB: number): boolean {
    return this.ranksBefore(this.items[indexB], this.scores[indexB], this.items[indexA], this.scores[indexA]);
  }

  private siftUp(index: number): void {
    let child = index;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.isWorse(child, parent)) break;
      this.swap(child, parent);
      child = parent;
    }
  }

  private siftDown(index: number): void {
    const size = this.items.length;
    let parent = index;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let worst = parent;
      if (left < size && this.isWorse(left, worst)) worst = left;
      if (right < size && this.isWorse(right, worst)) worst = right;
      if (worst === parent) return;
      this.swap(parent, worst);
      parent = worst;
    }
  }

  private swap(a: number, b: number): void {
    [this.items[a], this.items[b]] = [this.items[b], this.items[a]];
    [this.scores[a], this.scores[b]] = [this.scores[b], this.scores[a]];
  }
}

/**
 * Hands out one shared instance per distinct string, for a bounded set of large strings that many
 * records repeat: the system prompt is the same for every thread of a graph, role and locale, and
 * would otherwise be held once per cached thread (~4 KB each).
 */
export class StringInterner {
  private readonly strings = new Map<string, string>();

  constructor(private readonly maxEntries: number) {}

  intern(value: string): string {
    const existing = this.strings.get(value);
    if (existing !== undefined) return existing;
    this.strings.set(value, value);
    if (this.strings.size > this.maxEntries) this.strings.delete(this.strings.keys().next().value as string);
    return value;
  }

  get size(): number {
    return this.strings.size;
  }
}

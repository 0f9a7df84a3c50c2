/**
 * Remembers what `compute` gave for the latest keys, so that a key seen
 * again costs a lookup: at most `capacity` of them, each of at most
 * `maxKeyLength` characters (a longer one is computed every time), and
 * when full it starts afresh. Bounded, so that keys made up anew for each
 * call cost a lookup, not memory.
 */
export class RecentResults {
  private readonly results = new Map<string, string>();

  constructor(
    private readonly compute: (key: string) => string,
    private readonly capacity: number,
    private readonly maxKeyLength: number,
  ) {}

  /** What `compute` gives for `key`. */
  of(key: string): string {
    if (key.length > this.maxKeyLength) return this.compute(key);
    let result = this.results.get(key);
    if (result === undefined) {
      if (this.results.size >= this.capacity) this.results.clear();
      result = this.compute(key);
      this.results.set(key, result);
    }
    return result;
  }
}

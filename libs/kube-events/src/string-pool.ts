/**
 * One copy of each string that many series hold alike (an Event's identity,
 * a namespace), so that 100,000 series of the same failure keep one string,
 * not 100,000 equal ones. Bounded: when full it starts afresh, which only
 * costs copies again.
 */
export class StringPool {
  private readonly strings = new Map<string, string>();

  constructor(private readonly capacity = 1_024) {}

  /** The pooled string equal to `value`. */
  intern(value: string): string {
    const pooled = this.strings.get(value);
    if (pooled !== undefined) return pooled;
    if (this.strings.size >= this.capacity) this.strings.clear();
    this.strings.set(value, value);
    return value;
  }
}

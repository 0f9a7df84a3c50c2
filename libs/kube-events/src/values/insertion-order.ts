/** An item of an {@link InsertionOrder}: its links live on the item, so that adding, moving or removing it allocates nothing. */
export interface Linked<T> {
  previous: T | undefined;
  next: T | undefined;
}

/**
 * Items in the order they were added, each movable to the end: a doubly
 * linked list through the items themselves, O(1) for every operation.
 *
 * A `Map` keeps insertion order too, but V8 leaves a hole where an entry
 * was deleted and walks over the holes until it rebuilds the table, so a
 * queue that drops from its front and adds at its end pays for every
 * entry it dropped each time it looks at its front: a publish would cost
 * more the more series were dropped before it.
 */
export class InsertionOrder<T extends Linked<T>> {
  private head: T | undefined;
  private tail: T | undefined;

  /** The item added (or moved to the end) longest ago. */
  get first(): T | undefined {
    return this.head;
  }

  /** Whether the item is in this order (an item is in one order of its type at most). */
  has(item: T): boolean {
    return item.previous !== undefined || this.head === item;
  }

  /** Adds an item that is in no order at its end. */
  push(item: T): void {
    item.previous = this.tail;
    item.next = undefined;
    if (this.tail) this.tail.next = item;
    else this.head = item;
    this.tail = item;
  }

  /** Takes the item out; an item not in this order is left as it is. */
  remove(item: T): void {
    const { previous, next } = item;
    if (previous) previous.next = next;
    else if (this.head === item) this.head = next;
    else return;
    if (next) next.previous = previous;
    else this.tail = previous;
    item.previous = item.next = undefined;
  }

  /** Moves an item of this order to its end. */
  moveToEnd(item: T): void {
    if (this.tail === item) return;
    this.remove(item);
    this.push(item);
  }
}

import { InsertionOrder, type Linked } from './insertion-order.js';

interface Item extends Linked<Item> {
  readonly name: string;
}

const item = (name: string): Item => ({ name, previous: undefined, next: undefined });

function names(order: InsertionOrder<Item>): string[] {
  const seen: string[] = [];
  for (let at = order.first; at; at = at.next) seen.push(at.name);
  return seen;
}

describe('InsertionOrder', () => {
  it('keeps items in the order they were added, and moves one to the end on demand', () => {
    const order = new InsertionOrder<Item>();
    const [a, b, c] = ['a', 'b', 'c'].map(item);
    for (const each of [a, b, c]) order.push(each);
    expect(names(order)).toEqual(['a', 'b', 'c']);

    order.moveToEnd(a);
    expect(names(order)).toEqual(['b', 'c', 'a']);
    order.moveToEnd(a);
    expect(names(order)).toEqual(['b', 'c', 'a']);
    expect(c.previous).toBe(b);
    expect(a.previous).toBe(c);
  });

  it('removes from the front, the middle and the end, and lets go of the removed item’s links', () => {
    const order = new InsertionOrder<Item>();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(item);
    for (const each of [a, b, c, d]) order.push(each);

    order.remove(b);
    expect(names(order)).toEqual(['a', 'c', 'd']);
    expect(b.previous).toBeUndefined();
    expect(b.next).toBeUndefined();
    order.remove(a);
    order.remove(d);
    expect(names(order)).toEqual(['c']);
    expect(order.first).toBe(c);

    order.remove(c);
    expect(order.first).toBeUndefined();
    order.push(a);
    expect(names(order)).toEqual(['a']);
  });

  it('leaves the order as it is when asked to remove an item that is not in it', () => {
    const order = new InsertionOrder<Item>();
    const [a, b] = ['a', 'b'].map(item);
    order.push(a);
    order.remove(b);
    order.remove(b);
    expect(names(order)).toEqual(['a']);
    order.remove(a);
    order.remove(a);
    expect(order.first).toBeUndefined();
  });

  it('tells whether an item is in it, at the front, the end, alone or not at all', () => {
    const order = new InsertionOrder<Item>();
    const [a, b, c] = ['a', 'b', 'c'].map(item);
    expect(order.has(a)).toBe(false);
    order.push(a);
    expect(order.has(a)).toBe(true);
    order.push(b);
    expect([order.has(a), order.has(b), order.has(c)]).toEqual([true, true, false]);
    order.remove(a);
    expect([order.has(a), order.has(b)]).toEqual([false, true]);
  });
});

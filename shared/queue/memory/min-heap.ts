// A binary min-heap ordered by `at`: the memory driver's delayed set (client-go's waitingForQueue heap).
// Entries are never removed from the middle; callers drop stale ones when they reach the top.

export type Timed = { readonly at: number };

export class MinHeap<T extends Timed> {
  private readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent] as T;
      if (p.at <= item.at) break;
      items[i] = p;
      i = parent;
    }
    items[i] = item;
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const l = items[left] as T;
      const r = items[right];
      const child = r !== undefined && r.at < l.at ? right : left;
      const c = items[child] as T;
      if (c.at >= last.at) break;
      items[i] = c;
      i = child;
    }
    items[i] = last;
    return top;
  }
}

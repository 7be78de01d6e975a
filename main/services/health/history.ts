// A fixed-size ring: the newest `size` items, oldest first on read.
export class Ring<T> {
  private items: T[] = [];
  private next = 0;

  constructor(private readonly size: number) {}

  push(item: T): void {
    if (this.items.length < this.size) this.items.push(item);
    else this.items[this.next] = item;
    this.next = (this.next + 1) % this.size;
  }

  toArray(): T[] {
    if (this.items.length < this.size) return [...this.items];
    return [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
  }

  get length(): number {
    return this.items.length;
  }
}

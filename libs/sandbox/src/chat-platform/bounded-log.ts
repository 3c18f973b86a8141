/** An append-only log that keeps the newest `capacity` entries, so a long-running sandbox stays small. */
export class BoundedLog<T> {
  private items: T[] = [];

  constructor(private readonly capacity: number) {}

  push(entry: T): void {
    this.items.push(entry);
    // Trim in batches (a copy every `capacity / 10` appends) rather than shifting on every append.
    if (this.items.length > this.capacity + Math.ceil(this.capacity / 10)) {
      this.items = this.items.slice(-this.capacity);
    }
  }

  entries(): T[] {
    return this.items.slice(-this.capacity);
  }

  clear(): void {
    this.items = [];
  }
}

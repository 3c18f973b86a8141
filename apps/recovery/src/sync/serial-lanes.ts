/**
 * Work queued per key and run one task at a time per key, in order; different keys run side by
 * side. A guild's events are applied in the order the platform sent them even though each waits
 * for the registry, the licence and the pause row.
 */
export class SerialLanes {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly onError: (key: string, error: unknown) => void) {}

  run(key: string, task: () => Promise<void>): void {
    const tail = (this.tails.get(key) ?? Promise.resolve()).then(task).catch((error: unknown) => {
      this.onError(key, error);
    });
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
  }

  /** Resolves once every queued task has run, those queued meanwhile included. */
  async drain(): Promise<void> {
    while (this.tails.size > 0) await Promise.all(this.tails.values());
  }
}

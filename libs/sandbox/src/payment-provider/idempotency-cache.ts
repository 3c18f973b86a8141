/** An answer as written to the wire, kept byte for byte so a replay is exact. */
export interface RecordedAnswer {
  status: number;
  json: string;
}

type Entry = { state: 'processing' } | { state: 'done'; answer: RecordedAnswer };

export interface IdempotencyClaim {
  /** Stores the answer for replays; ignored if the cache was cleared since the claim. */
  complete(answer: RecordedAnswer): void;
  /** Forgets the key (the request failed inside the fake), so a retry is processed afresh. */
  release(): void;
}

/** Idempotency keys and what their first request answered; remembered until cleared. */
export class IdempotencyCache {
  private readonly entries = new Map<string, Entry>();

  lookup(key: string): 'processing' | RecordedAnswer | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    return entry.state === 'processing' ? 'processing' : entry.answer;
  }

  claim(key: string): IdempotencyClaim {
    const entry: Entry = { state: 'processing' };
    this.entries.set(key, entry);
    // A reset() while the answer is held replaces or forgets the entry; the old claim must not undo that.
    const stillMine = () => this.entries.get(key) === entry;
    return {
      complete: (answer) => {
        if (stillMine()) this.entries.set(key, { state: 'done', answer });
      },
      release: () => {
        if (stillMine()) this.entries.delete(key);
      },
    };
  }

  clear(): void {
    this.entries.clear();
  }
}

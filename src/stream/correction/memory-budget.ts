// The BSON bytes that corrections may hold decoded at once (config `correctionMemoryMiB`):
// a near-16 MiB document costs many times its bytes while it is planned and written
// (docs/deployment.md#container-image), so the budget, not `concurrency`, bounds memory.
import type { ReadBudget } from "../../patterns/driver.js";

/**
 * What one correction holds of the budget, from its first read to its end (whatever
 * happened). Its preview and each attempt of its transaction read the documents again: the
 * hold keeps what the largest of those plans admitted, as each plan's documents are garbage
 * once the next one reads.
 */
export interface BudgetHold {
  /** What one plan (the preview, an attempt) admits its reads into. */
  plan(): ReadBudget;
  release(): void;
}

export interface BudgetObserver {
  /** The bytes held now, after every change. */
  held(bytes: number): void;
  /** An admission had to wait. */
  waited(): void;
}

/** The largest BSON document a server stores. */
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

interface Waiter {
  bytes: number;
  admitted: () => void;
}

export class MemoryBudget {
  private used = 0;
  private readonly waiters: Waiter[] = [];

  constructor(
    readonly capacity: number,
    private readonly observer?: BudgetObserver,
  ) {
    if (!Number.isSafeInteger(capacity) || capacity < 1)
      throw new RangeError(`a memory budget must be a positive number of bytes, got ${capacity}`);
  }

  /** A hold for one correction. */
  hold(): BudgetHold {
    let held = 0;
    /**
     * Whether raising the hold to `bytes` would wait. Only a hold that holds nothing waits: two
     * that each held part and waited for more could wait for each other for ever. What it reads
     * after its first documents (a chunk, a product's reviews) is counted without waiting.
     */
    const waitsFor = (bytes: number) => bytes > held && held === 0 && !this.fits(bytes);
    /** Raises what the hold holds to `bytes`, waiting only while it holds nothing. */
    const holdUpTo = async (bytes: number) => {
      const more = bytes - held;
      if (more <= 0) return;
      if (!waitsFor(bytes)) this.take(more);
      else {
        this.observer?.waited();
        await new Promise<void>((admitted) => this.waiters.push({ bytes: more, admitted }));
      }
      held += more;
    };
    return {
      plan: () => {
        let planned = 0;
        return {
          // Strictly within the budget: a batch larger than it would be read first and then
          // wait, holding its bytes, if another correction took some meanwhile.
          admitsDocuments: (count) =>
            held > 0 ||
            (this.waiters.length === 0 && this.used + count * MAX_DOCUMENT_BYTES <= this.capacity),
          holdsWithin: (bytes) => Math.max(held, planned + bytes) <= this.capacity,
          admitsBytes: (bytes) => !waitsFor(planned + bytes),
          admit: (bytes) => holdUpTo((planned += bytes)),
        };
      },
      release: () => {
        this.used -= held;
        held = 0;
        this.admitWaiters();
        this.observer?.held(this.used);
      },
    };
  }

  /**
   * Whether `bytes` may be taken now: nobody waits before it (none is overtaken, so a large
   * document is not starved by small ones), and it fits, or nothing is held at all (a
   * document larger than the whole budget is corrected alone rather than never).
   */
  private fits(bytes: number): boolean {
    return this.waiters.length === 0 && (this.used + bytes <= this.capacity || this.used === 0);
  }

  private take(bytes: number): void {
    this.used += bytes;
    this.observer?.held(this.used);
  }

  private admitWaiters(): void {
    for (let next = this.waiters[0]; next; next = this.waiters[0]) {
      if (this.used > 0 && this.used + next.bytes > this.capacity) return;
      this.waiters.shift();
      this.used += next.bytes;
      next.admitted();
    }
  }
}

// A seeded pseudo-random generator (mulberry32), so that a run's choices (which replica,
// which signal, how long a pause, what each writer writes) replay from its seed.
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }

  /** Another generator whose sequence depends only on this one's seed and `label`. */
  fork(label: number): Prng {
    return new Prng(Math.imul(this.state ^ 0x9e3779b9, 31) + label * 7919);
  }
}

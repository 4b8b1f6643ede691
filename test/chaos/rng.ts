/** A seeded generator (mulberry32): the same CHAOS_SEED gives the same fault plan and the same mix of actions. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  between(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }

  weighted<T>(choices: Array<[T, number]>): T {
    const total = choices.reduce((s, [, w]) => s + w, 0);
    let r = this.next() * total;
    for (const [c, w] of choices) {
      r -= w;
      if (r <= 0) return c;
    }
    return choices[choices.length - 1]![0];
  }
}

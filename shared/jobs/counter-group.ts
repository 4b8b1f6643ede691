interface Waiting {
  resolve(n: number | null): void;
  reject(err: unknown): void;
}

const MAX_BATCH = 128;

/**
 * Group commit for one job's slot counter: reservers of the job asking while a step is in
 * flight get their numbers from the next step together, one `$inc` of their count, instead of
 * one store command each (the counter is the one document they all touch). `step(k)` advances
 * the counter by k and answers the first of the k numbers, or null when none was left; numbers
 * at or past the job's size come back as null too. An idle caller is sent at once.
 */
export class CounterGroup {
  private readonly waiting: Waiting[] = [];
  private busy = false;

  constructor(
    private readonly step: (k: number) => Promise<number | null>,
    private readonly limit: number,
    private readonly onIdle: () => void,
  ) {}

  next(): Promise<number | null> {
    return new Promise<number | null>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.busy) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.busy = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_BATCH);
        try {
          const first = await this.step(batch.length);
          batch.forEach((w, i) => w.resolve(first === null || first + i >= this.limit ? null : first + i));
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      this.busy = false;
      this.onIdle();
    }
  }
}

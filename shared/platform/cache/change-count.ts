/**
 * How many changes this process has made to some stored state. A cache built from reads of that
 * state notes the count when it reads and drops what it read before a later change: a change made
 * through any instance in this process is seen at once, one made by another process when the
 * cache's entries age out.
 */
export class ChangeCount {
  private n = 0;

  get value(): number {
    return this.n;
  }

  bump(): void {
    this.n++;
  }
}

/**
 * Keys to expire at a time, in the order they were pushed (a fixed TTL on a clock that does not go back keeps
 * them in time order): taking the due ones costs only those. An entry carries the resourceVersion it was
 * pushed at, so the caller can skip one whose object was written again since (that write pushed a newer one).
 */
export class ExpiryQueue {
  private items: { at: number; key: string; rv: string }[] = [];
  private head = 0;

  push(at: number, key: string, rv: string): void {
    this.items.push({ at, key, rv });
  }

  /** Removes and returns the entries due at `now`. */
  due(now: number): { key: string; rv: string }[] {
    const out: { key: string; rv: string }[] = [];
    while (this.head < this.items.length && this.items[this.head].at <= now) out.push(this.items[this.head++]);
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return out;
  }
}

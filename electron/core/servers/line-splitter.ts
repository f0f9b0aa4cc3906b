/**
 * Splits a byte stream into newline-terminated lines with a hard cap on how
 * much it holds. A line longer than the cap is dropped as it streams in,
 * without ever being held whole; each further cap's worth of the same line
 * is reported again, so a server that never sends a newline keeps costing
 * it faults while Airlock's memory stays flat.
 * SECURITY: invariant 7 — a server's output cannot exhaust Airlock's memory.
 */
export class BoundedLineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;
  private discardedBytes = 0;
  private highWater = 0;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: Buffer) => void,
    /** Called once per cap's worth of an oversized line, with the bytes dropped so far. */
    private readonly onOversize: (droppedBytes: number) => void,
  ) {}

  /** Feeds a chunk; calls `onLine` for each complete line (without `\n` or a trailing `\r`). */
  push(chunk: Buffer): void {
    let start = 0;
    while (start <= chunk.length) {
      const index = chunk.indexOf(10, start);
      if (index === -1) {
        this.holdTail(chunk.subarray(start));
        return;
      }
      const segment = chunk.subarray(start, index);
      start = index + 1;
      if (this.discarding) {
        this.discarding = false;
        this.discardedBytes = 0;
        continue;
      }
      if (this.pendingBytes + segment.length > this.maxLineBytes) {
        const dropped = this.pendingBytes + segment.length;
        this.pending = [];
        this.pendingBytes = 0;
        this.onOversize(dropped);
        continue;
      }
      let line = this.pending.length === 0 ? segment : Buffer.concat([...this.pending, segment]);
      this.pending = [];
      this.pendingBytes = 0;
      if (line.length > 0 && line[line.length - 1] === 13) line = line.subarray(0, line.length - 1);
      this.onLine(line);
    }
  }

  /** The most bytes this splitter ever held for an unfinished line. */
  get highWaterBytes(): number {
    return this.highWater;
  }

  /** Drops whatever is held. */
  clear(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
    this.discardedBytes = 0;
  }

  private holdTail(tail: Buffer): void {
    if (tail.length === 0) return;
    if (this.discarding) {
      const before = Math.floor(this.discardedBytes / this.maxLineBytes);
      this.discardedBytes += tail.length;
      if (Math.floor(this.discardedBytes / this.maxLineBytes) > before) this.onOversize(this.discardedBytes);
      return;
    }
    if (this.pendingBytes + tail.length > this.maxLineBytes) {
      this.discarding = true;
      this.discardedBytes = this.pendingBytes + tail.length;
      this.pending = [];
      this.pendingBytes = 0;
      this.onOversize(this.discardedBytes);
      return;
    }
    // Copy: a slice would keep the whole chunk it came from alive.
    this.pending.push(Buffer.from(tail));
    this.pendingBytes += tail.length;
    if (this.pendingBytes > this.highWater) this.highWater = this.pendingBytes;
  }
}

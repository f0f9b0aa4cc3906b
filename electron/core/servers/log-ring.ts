/** Where a line of a server's log came from. */
export type LogSource = 'stderr' | 'notification' | 'airlock';

/** One line of a server's log. Text is the server's own output: data, never instructions. */
export interface LogLine {
  at: number;
  source: LogSource;
  text: string;
}

/** Caps for a {@link LogRing}. */
export interface LogRingLimits {
  /** Most lines kept (oldest dropped first). */
  maxLines: number;
  /** Most bytes (UTF-16 code units, roughly) kept across all lines. */
  maxChars: number;
  /** Longest single line; longer lines are cut and marked. */
  maxLineChars: number;
}

/** Default caps: the last 1000 lines, 256 KB at most, 8 KB per line. */
export const DEFAULT_LOG_RING_LIMITS: LogRingLimits = { maxLines: 1000, maxChars: 256 * 1024, maxLineChars: 8 * 1024 };

// Defined beside the core's other faces (every shell shows servers' text with them); re-exported for the room.
import { inertText } from '../inert';
export { inertLine, inertText } from '../inert';

/**
 * A capped ring of log lines: the server's stderr, its log notifications and
 * Airlock's own notes about it. Memory stays bounded however much a server
 * writes (TESTING.md, hostile behaviour 6).
 */
export class LogRing {
  private readonly lines: LogLine[] = [];
  private head = 0;
  private chars = 0;
  private partial = '';
  private partialTruncated = false;
  private droppedLines = 0;
  readonly limits: LogRingLimits;

  constructor(limits: Partial<LogRingLimits> = {}, private readonly now: () => number = Date.now) {
    this.limits = { ...DEFAULT_LOG_RING_LIMITS, ...limits };
  }

  /** Appends one complete line (control and bidi characters made visible). */
  push(source: LogSource, text: string): void {
    let line = inertText(text);
    if (line.length > this.limits.maxLineChars) {
      line = `${line.slice(0, this.limits.maxLineChars)} …[cut ${line.length - this.limits.maxLineChars} chars]`;
    }
    this.lines.push({ at: this.now(), source, text: line });
    this.chars += line.length;
    while (this.lines.length - this.head > this.limits.maxLines || (this.chars > this.limits.maxChars && this.lines.length - this.head > 1)) {
      const dropped = this.lines[this.head];
      this.lines[this.head] = undefined as unknown as LogLine;
      this.head++;
      this.droppedLines++;
      this.chars -= dropped?.text.length ?? 0;
    }
    // Compact now and then so the backing array does not grow with the number dropped.
    if (this.head > 1024 && this.head * 2 > this.lines.length) {
      this.lines.splice(0, this.head);
      this.head = 0;
    }
  }

  /**
   * Feeds a chunk of a stream (stderr): complete lines are pushed, the rest
   * waits for its newline; a partial line never grows past `maxLineChars`.
   */
  write(source: LogSource, chunk: string): void {
    let text = this.partial + chunk;
    let index = text.indexOf('\n');
    while (index !== -1) {
      const line = text.slice(0, index).replace(/\r$/, '');
      this.push(source, this.partialTruncated ? `${line} …[cut]` : line);
      this.partialTruncated = false;
      text = text.slice(index + 1);
      index = text.indexOf('\n');
    }
    if (text.length > this.limits.maxLineChars) {
      text = text.slice(0, this.limits.maxLineChars);
      this.partialTruncated = true;
    }
    this.partial = text;
  }

  /** The lines kept, oldest first (a copy). */
  snapshot(): LogLine[] {
    const out = this.lines.slice(this.head);
    if (this.partial) out.push({ at: this.now(), source: 'stderr', text: this.partial });
    return out;
  }

  /** Figures about the ring, for tests and the UI. */
  stats(): { lines: number; chars: number; droppedLines: number } {
    return { lines: this.lines.length - this.head, chars: this.chars + this.partial.length, droppedLines: this.droppedLines };
  }
}

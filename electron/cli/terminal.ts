/**
 * What a terminal gets that a pipe does not: colour (never with NO_COLOR,
 * never when stdout is not a terminal, unless FORCE_COLOR asks) and a
 * spinner on stderr for long steps, with the seconds spent, so a slow npm
 * install or a server that takes its time is never silence.
 */
import type { WriteStream } from 'node:tty';
import { createColors } from 'picocolors';
import type { Progress } from './output';

/** Whether to colour a stream: https://no-color.org, FORCE_COLOR, TERM=dumb. */
export function wantsColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

/** Airlock's few colours: meaning, not decoration. Server text is never coloured (it is made inert first). */
export function palette(enabled: boolean) {
  const c = createColors(enabled);
  return {
    ok: c.green,
    warn: c.yellow,
    danger: (text: string) => c.bold(c.red(text)),
    heading: c.bold,
    dim: c.dim,
    code: c.cyan,
  };
}
export type Palette = ReturnType<typeof palette>;

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A one-line spinner on a terminal stream, redrawn in place; cleared when done. */
export function spinner(stream: Pick<WriteStream, 'write' | 'columns'>, text: string, now: () => number = Date.now): Progress {
  const started = now();
  let label = text;
  let frame = 0;
  const draw = () => {
    const seconds = Math.floor((now() - started) / 1000);
    const line = `${FRAMES[frame++ % FRAMES.length]} ${label}${seconds >= 2 ? ` (${seconds} s)` : ''}`;
    const width = stream.columns && stream.columns > 20 ? stream.columns : 80;
    stream.write(`\r\x1b[2K${line.slice(0, width - 1)}`);
  };
  draw();
  const timer = setInterval(draw, 100);
  timer.unref();
  let finished = false;
  return {
    update(next) {
      label = next;
    },
    done(line) {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      stream.write(`\r\x1b[2K${line ? `${line}\n` : ''}`);
    },
  };
}

/**
 * What a window loads first (the built renderer in out/renderer): the
 * servers screen, and not the chat, the install screens, Find servers,
 * Activity or Settings, which load when first opened — nor the schema
 * library, which only those need. Fails when a static import pulls one of
 * them back into the first load.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allScripts, firstLoad, measureRendererSize, withStaticImports } from '../bench/renderer-size';

const read = (files: string[]) => files.map((file) => readFileSync(file, 'utf8'));
const scripts = () => read(firstLoad());
/** A screen's heading id, as a string literal of the built code (not a part of a longer id). */
const id = (name: string) => new RegExp(`[\`"']${name}[\`"']`);

describe('the first load of the window', () => {
  it('holds the servers screen (the control: the check can see a screen)', () => {
    expect(scripts().some((code) => id('servers-title').test(code))).toBe(true);
  });

  it.each([
    ['the chat', id('chat-title')],
    ['the install screens', id('install-title')],
    ['Find servers', id('find-title')],
    ['Activity', id('activity-title')],
    ['Settings', id('settings-title')],
    ['the Markdown renderer', /micromark/],
    ['the schema library', /Invalid input/],
  ])('leaves out %s (loaded on demand)', (_what, marker) => {
    expect(scripts().filter((code) => marker.test(code))).toEqual([]);
  });

  it('is minified and smaller than everything together', () => {
    const { total, first } = measureRendererSize();
    expect(first).toBeLessThan(total);
    // Minified: the entry has no line of ordinary source length after line 3 of a pretty-printed file.
    const entry = readFileSync(firstLoad()[0]!, 'utf8');
    expect(entry.split('\n').length).toBeLessThan(50);
  });
});

describe('opening a screen on demand', () => {
  /** What loads with the screen whose heading id is `name`: its chunk and that chunk's static imports. */
  const loadsWith = (name: string) => {
    const chunk = allScripts().filter((file) => id(name).test(readFileSync(file, 'utf8')));
    expect(chunk).toHaveLength(1);
    return read(withStaticImports(chunk));
  };

  it('loads the schema library with a tool’s screen (the control: the check can see it)', () => {
    expect(loadsWith('screen-frame').some((code) => /Invalid input/.test(code))).toBe(true);
  });

  it('opens the chat without the schema library (it comes only with a tool’s screen in the chat)', () => {
    expect(loadsWith('chat-title').filter((code) => /Invalid input/.test(code))).toEqual([]);
  });
});

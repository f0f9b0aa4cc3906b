/**
 * The README is the front door (task L, item 6): every link inside it leads
 * somewhere — each `](#anchor)` to a heading (GitHub's slugs), each relative
 * link and image to a file in the repository — and it reads in order: what
 * Airlock is, set-up, what you see, permissions and how a call is decided,
 * the activity log, security, then the command line. The activity log and
 * what servers ask back are not buried under Security.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../..');
const text = readFileSync(join(REPO, 'README.md'), 'utf8');
// Headings outside code blocks.
const withoutCode = text.replace(/```[\s\S]*?```/g, '');
const headings = [...withoutCode.matchAll(/^(#{1,6}) (.+)$/gm)].map((m) => ({ level: m[1]!.length, title: m[2]!.trim() }));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
function slug(title: string): string {
  return title
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

describe('README', () => {
  it('every in-page link names a heading that exists', () => {
    const anchors = new Set(headings.map((h) => slug(h.title)));
    const links = [...withoutCode.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((link) => !anchors.has(link))).toEqual([]);
  });

  it('every relative link and image names a file in the repository', () => {
    const targets = [...withoutCode.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/i.test(target));
    expect(targets.length).toBeGreaterThan(0);
    expect(targets.filter((target) => !existsSync(join(REPO, target)))).toEqual([]);
  });

  it('reads in order, and the activity log and what servers ask back are their own places, not under Security', () => {
    const top = headings.filter((h) => h.level === 2).map((h) => h.title);
    const at = (title: string) => top.indexOf(title);
    for (const title of ['Set up', 'What you see', 'What each permission means', 'The activity log', 'Security', 'The command line', 'Limits']) expect(at(title)).toBeGreaterThanOrEqual(0);
    expect(at('Set up')).toBeLessThan(at('What you see'));
    expect(at('What you see')).toBeLessThan(at('What each permission means'));
    expect(at('What each permission means')).toBeLessThan(at('The activity log'));
    expect(at('The activity log')).toBeLessThan(at('Security'));
    // Each third-level heading's section: the second-level heading above it.
    const parentOf = (title: string) => {
      const index = headings.findIndex((h) => h.title === title);
      return headings.slice(0, index).reverse().find((h) => h.level === 2)?.title;
    };
    expect(parentOf('What servers ask back')).toBe('What each permission means');
    expect(parentOf('How a call is decided')).toBe('What each permission means');
    expect(headings.filter((h) => h.level === 1)).toHaveLength(1);
  });
});

// Which URIs a resource template makes, read without running a pattern the server wrote.
import { describe, expect, it } from 'vitest';
import { templateCovers } from '../../../electron/core/catalog/template-match';

describe('templateCovers', () => {
  it.each([
    ['note://by-id/{id}', 'note://by-id/7', true],
    ['note://by-id/{id}', 'note://v2/7', false],
    ['note://v2/{id}', 'note://v2/7', true],
    ['note://{a}/x/{b}.txt', 'note://one/x/two.txt', true],
    ['note://{a}/x/{b}.txt', 'note://one/y/two.txt', false],
    ['note://{a}/x/{b}.txt', 'note://one/x/two.md', false],
    ['file:///{+path}', 'file:///etc/hosts', true],
    ['search{?q,lang}', 'search?q=a&lang=en', true],
    ['plain://exact', 'plain://exact', true],
    ['plain://exact', 'plain://exact/more', false],
    ['{anything}', 'whatever://at/all', true],
    ['a{x}ab{y}b', 'ab', false],
    ['a{x}ab{y}b', 'aabb', true],
  ])('%s makes %s: %s', (template, uri, expected) => {
    expect(templateCovers(template, uri)).toBe(expected);
  });

  it('a hostile template is read in one pass (a backtracking pattern built from it would not finish)', () => {
    expect(templateCovers(`${'{a}a'.repeat(2000)}!`, 'a'.repeat(8000))).toBe(false);
  });
});

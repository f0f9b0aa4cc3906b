/**
 * The install disclosure's "where this computer's sandbox holds less than
 * Linux's" names only what matters to this server with the grants it gets:
 * the row about files protected inside write grants only when it has a
 * write grant; every other weaker row always (on Windows even a server with
 * no grant shares one identity with those that have some). The rows are
 * the real backends' own, compared with Linux's as the launcher does.
 */
import { describe, expect, it } from 'vitest';
import { formatPlatformWeaker } from '../../electron/cli/sandbox-plan-format';
import { palette } from '../../electron/cli/terminal';
import { platformBackend, weakerThan } from '../../electron/core/sandbox/platform';
import { guaranteesFor } from '../../shared/sandbox-views';

const facts = { runningAsRoot: false };
const weakerOn = (platform: 'darwin' | 'win32') => weakerThan(platformBackend(platform)!.guarantees(facts), platformBackend('linux')!.guarantees(facts));
const NO_WRITES = { filesystem: { write: [] as string[] } };
const WRITES = { filesystem: { write: ['C:\\Users\\ann\\code\\proj'] } };

describe('the rows that matter to one server', () => {
  it('Windows: without a write grant, everything weaker but the files protected inside write grants', () => {
    const rows = guaranteesFor(weakerOn('win32'), NO_WRITES).map((row) => row.row);
    expect(rows).not.toContain('protected-files');
    expect(rows).toEqual(expect.arrayContaining(['home-hidden', 'credentials-denied', 'data-folders-hidden', 'writes-only-grants', 'network-allowlist', 'ipc-isolation', 'resource-limits']));
  });

  it('Windows: with a write grant, that row too', () => {
    expect(guaranteesFor(weakerOn('win32'), WRITES).map((row) => row.row)).toContain('protected-files');
  });

  it('macOS: the same rows either way (none of its weaker rows is about write grants alone)', () => {
    expect(guaranteesFor(weakerOn('darwin'), NO_WRITES)).toEqual(guaranteesFor(weakerOn('darwin'), WRITES));
    expect(guaranteesFor(weakerOn('darwin'), NO_WRITES).length).toBeGreaterThan(0);
  });

  it("the CLI's disclosure prints only those rows, and nothing when none matters", () => {
    const c = palette(false);
    const without = formatPlatformWeaker(weakerOn('win32'), NO_WRITES, c);
    expect(without).toContain('For this server:');
    expect(without).not.toContain('Protected files inside grants');
    expect(without).toContain('Writes only to grants');
    expect(formatPlatformWeaker(weakerOn('win32'), WRITES, c)).toContain('Protected files inside grants');
    const onlyScoped = weakerOn('win32').filter((row) => row.onlyWith);
    expect(formatPlatformWeaker(onlyScoped, NO_WRITES, c)).toBe('');
  });
});

/** The checks made before anything is downloaded or saved: each problem one plain sentence. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { domainProblem, envNameProblem, nameProblem, parseEnvAssignments, pathProblem, profileProblems } from '../../../electron/core/install/checks';

describe('server names', () => {
  it.each([
    ['files', undefined],
    ['my-server-2', undefined],
    ['My Server', '“My Server” is not a server name Airlock can use: use lowercase letters, digits and dashes, starting with a letter or digit, at most 48 (for example “my-server”).'],
    ['MyServer', '“MyServer” is not a server name Airlock can use: use lowercase letters, digits and dashes, starting with a letter or digit, at most 48 (for example “myserver”).'],
    ['my_server', '“my_server” is not a server name Airlock can use: use lowercase letters, digits and dashes, starting with a letter or digit, at most 48 (for example “my-server”).'],
    ['-x', '“-x” is not a server name Airlock can use: use lowercase letters, digits and dashes, starting with a letter or digit, at most 48 (for example “x”).'],
  ])('%s', (name, problem) => expect(nameProblem(name)).toBe(problem));

  it('a duplicate', () => {
    expect(nameProblem('files', ['memory', 'files'])).toBe('A server named files already exists. Choose another name, or remove it first (`airlock remove files`).');
  });
});

describe('domains', () => {
  it.each(['api.github.com', '*.example.com', 'example.com:8443', '127.0.0.1:8080', '10.0.0.1', '[::1]:8080', 'localhost'])('%s is one Airlock can enforce', (domain) => {
    expect(domainProblem(domain)).toBeUndefined();
  });
  it.each([
    ['not a domain', /is not a domain Airlock can allow/],
    ['https://api.github.com/user', /is a URL; give only its domain \(api\.github\.com\)/],
    ['github', /has no dot: give the full domain \(e\.g\. api\.github\.com\)/],
    ['api.*.com', /a wildcard may only stand for the subdomains at the front/],
    ['example.com:99999', /must be between 1 and 65535/],
    ['evil.com\u0000.good.com', /is not a domain Airlock can allow/],
  ])('%s is refused', (domain, problem) => expect(domainProblem(domain)).toMatch(problem));
});

describe('paths and profiles', () => {
  const root = mkdtempSync(join(tmpdir(), 'airlock-checks-'));
  const folder = join(root, 'folder');
  mkdirSync(folder);
  writeFileSync(join(root, 'file.txt'), 'x');
  it('a write grant must be an existing folder; a read grant an existing path', () => {
    expect(pathProblem('write', folder)).toBeUndefined();
    expect(pathProblem('read', join(root, 'file.txt'))).toBeUndefined();
    expect(pathProblem('write', join(root, 'file.txt'))).toMatch(/is a file; grant the folder it is in/);
    expect(pathProblem('read', join(root, 'missing'))).toBe(`The read grant ${join(root, 'missing')} does not exist. Create it first, or leave the grant out.`);
    expect(pathProblem('write', 'relative/path')).toBe('The write grant “relative/path” must be an absolute path.');
  });
  it('every problem of a profile, writes first', () => {
    expect(
      profileProblems({ filesystem: { read: [join(root, 'nope')], write: [join(root, 'gone')], persistentData: false }, network: { allowedDomains: ['ok.example.com', 'bad domain'] } }),
    ).toHaveLength(3);
  });
});

describe('plain settings', () => {
  it('KEY=VALUE, with secrets and Airlock’s own variables refused', () => {
    expect(parseEnvAssignments(['MEMORY_FILE_PATH=/tmp/m.json', 'EMPTY=', 'EQ=a=b'])).toEqual({ env: { MEMORY_FILE_PATH: '/tmp/m.json', EMPTY: '', EQ: 'a=b' }, problems: [] });
    expect(parseEnvAssignments(['NOVALUE']).problems).toEqual(['--env takes KEY=VALUE, got “NOVALUE”.']);
    expect(envNameProblem('GITHUB_TOKEN')).toMatch(/looks like a secret: pass it with --secret GITHUB_TOKEN/);
    expect(envNameProblem('HOME')).toMatch(/set by Airlock for every server/);
    expect(envNameProblem('1X')).toMatch(/is not an environment variable name/);
    expect(envNameProblem('__proto__')).toBeUndefined();
    expect(Object.getPrototypeOf(parseEnvAssignments(['__proto__=x']).env)).toBe(Object.prototype);
  });
});

import { describe, expect, it } from 'vitest';
import { keepOnlyGrantedWrites, parseWrappedCommand, splitQuotedWords } from '../../../electron/core/sandbox/bwrap-argv';
import { buildServerEnv } from '../../../electron/core/sandbox/profiles';

describe('reading sandbox-runtime’s command back into an argv', () => {
  it.each([
    ["a b 'c d' ''", ['a', 'b', 'c d', '']],
    [`'it'"'"'s' x`, ["it's", 'x']],
    [`'/p/apply' /bin/sh -c 'echo '"'"'hi'"'"''`, ['/p/apply', '/bin/sh', '-c', "echo 'hi'"]],
    ['--bind /a/b /a/b', ['--bind', '/a/b', '/a/b']],
  ])('splits %j', (text, words) => {
    expect(splitQuotedWords(text)).toEqual(words);
  });

  it.each(['a $(b)', 'a "b"', "a 'b", 'a\tb', 'a;b'])('refuses %j rather than guess', (text) => {
    expect(() => splitQuotedWords(text)).toThrow(/sandbox-runtime/);
  });

  const expected = { bwrapPath: '/usr/bin/bwrap', shell: '/bin/sh', placeholder: 'cmd' };

  it('takes the options and the seccomp helper out of a wrapped command', () => {
    const wrapped = `/usr/bin/bwrap --unshare-net --ro-bind / / -- /bin/sh -c '/x/apply-seccomp /bin/sh -c cmd'`;
    expect(parseWrappedCommand(wrapped, expected)).toEqual({
      options: ['--unshare-net', '--ro-bind', '/', '/'],
      applySeccompPath: '/x/apply-seccomp',
    });
  });

  it('fails closed when the seccomp helper is missing', () => {
    expect(() => parseWrappedCommand(`/usr/bin/bwrap --unshare-net -- /bin/sh -c cmd`, expected)).toThrow(/seccomp/);
  });

  it('fails closed when the binary is not the pinned bwrap (e.g. the args-file form)', () => {
    expect(() => parseWrappedCommand(`/bin/sh -c 'exec 9<"$1"' srt-args /proc/1/fd/9 /usr/bin/bwrap`, expected)).toThrow(
      /plain bwrap/,
    );
  });

  it('keeps only writable binds Airlock asked for', () => {
    const options = [
      '--ro-bind', '/', '/',
      '--bind', '/root/.npm/_logs', '/root/.npm/_logs',
      '--bind', '/tmp/claude', '/tmp/claude',
      '--bind', '/run/w', '/run/w',
      '--bind', '/run/w/sub', '/run/w/sub',
      '--bind', '/dev/null', '/dev/null',
      '--bind', '/run/w', '/elsewhere',
      '--tmpfs', '/root/.ssh',
    ];
    const { options: kept, dropped } = keepOnlyGrantedWrites(options, ['/run/w'], ['/dev/null']);
    expect(kept).toEqual([
      '--ro-bind', '/', '/',
      '--bind', '/run/w', '/run/w',
      '--bind', '/run/w/sub', '/run/w/sub',
      '--bind', '/dev/null', '/dev/null',
      '--tmpfs', '/root/.ssh',
    ]);
    expect(dropped).toEqual(['/root/.npm/_logs', '/tmp/claude', '/run/w']);
  });
});

describe('the server environment', () => {
  const base = {
    hostEnv: { PATH: '/usr/bin', LANG: 'en_US.UTF-8', SECRET_TOKEN: 'host', SSH_AUTH_SOCK: '/tmp/agent', HTTP_PROXY: 'http://corp:3128' },
    specEnv: { LOG_LEVEL: 'debug', HOME: '/root' },
    secrets: { API_KEY: 'k' },
    home: '/run/x/home',
    tmp: '/run/x/tmp',
  };

  it('is the minimal set plus grants; the host’s secrets and proxy never pass; the sandbox owns HOME and TMPDIR', () => {
    const env = buildServerEnv(base);
    expect(env).toMatchObject({ PATH: '/usr/bin', LANG: 'en_US.UTF-8', LOG_LEVEL: 'debug', API_KEY: 'k', HOME: '/run/x/home', TMPDIR: '/run/x/tmp' });
    expect(env).not.toHaveProperty('SECRET_TOKEN');
    expect(env).not.toHaveProperty('SSH_AUTH_SOCK');
    expect(env).not.toHaveProperty('HTTP_PROXY');
  });

  it('advertises the per-server proxy when there is one', () => {
    const env = buildServerEnv({ ...base, proxy: { url: 'http://127.0.0.1:3128', socksUrl: 'socks5h://127.0.0.1:3128' } });
    expect(env).toMatchObject({ HTTP_PROXY: 'http://127.0.0.1:3128', HTTPS_PROXY: 'http://127.0.0.1:3128', ALL_PROXY: 'socks5h://127.0.0.1:3128' });
    expect(env).not.toHaveProperty('NO_PROXY');
  });
});

/**
 * The pure parts of screens (MCP Apps): reading what a screen declares
 * (strictly: nothing unparsed reaches a CSP header), the policy headers built
 * from declared ∩ allowed, the fingerprint and what changed, and the
 * decision on a screen's tool call — as tables.
 */
import { describe, expect, it } from 'vitest';
import { allowedScreenDomains, noScreenDomains, parseScreenDomain, readScreenDeclaration, toolScreen, toolVisibility } from '../../../shared/screens';
import { decideScreenCall, linkProblem, readScreen, screenChanges, SCREEN_CALLS_IN_FLIGHT, SCREEN_CALLS_PER_MINUTE } from '../../../electron/core/screens/screen-decisions';
import { screenAllowAttribute, screenContentSecurityPolicy, screenPermissionsPolicy } from '../../../electron/core/screens/screen-policy';
import { screenFrameResponse, screenOriginKey } from '../../../electron/core/screens/screen-frames';

const MIME = 'text/html;profile=mcp-app';

describe('parseScreenDomain: only an exact scheme, host and port reach the policy', () => {
  it.each([
    ['https://api.example.com', 'https://api.example.com'],
    ['https://API.Example.com/', 'https://api.example.com'],
    ['wss://live.example.com:8443', 'wss://live.example.com:8443'],
    ['http://127.0.0.1:4100', 'http://127.0.0.1:4100'],
    ['https://*.cdn.example.com', 'https://*.cdn.example.com'],
    ['http://[::1]:80', 'http://[::1]:80'],
  ])('%s → %s', (raw, origin) => {
    expect(parseScreenDomain(raw)).toEqual({ ok: true, origin });
  });

  it.each([
    ['https://a.example.com; script-src *', 'a directive smuggled after a semicolon'],
    ["'unsafe-eval'", 'a keyword'],
    ['*', 'everything'],
    ['https://*', 'a bare wildcard'],
    ['https://*.com', 'every name under a top-level domain'],
    ['data:', 'a scheme source'],
    ['https://a.example.com/path', 'a path'],
    ['https://a.example.com https://b.example.com', 'two sources in one'],
    ['javascript://x', 'another scheme'],
    ['https://user@a.example.com', 'credentials'],
    ['https://a.example.com:99999', 'a port out of range'],
    [42, 'not text'],
  ] as Array<[unknown, string]>)('%s is refused (%s)', (raw, _why) => {
    expect(parseScreenDomain(raw).ok).toBe(false);
  });
});

describe('reading a screen', () => {
  it('takes its HTML, its declared addresses (sorted, deduplicated) and permissions; leaves out what is not exact, saying so', () => {
    const declaration = readScreenDeclaration(
      'ui://s/a.html',
      [
        {
          uri: 'ui://s/a.html',
          mimeType: MIME,
          text: '<p>hi</p>',
          _meta: { ui: { csp: { connectDomains: ['https://b.example.com', 'https://a.example.com', 'https://a.example.com', 'https://x.example.com; frame-src *'], frameDomains: 'https://y.example.com' }, permissions: { camera: {}, telepathy: {} }, prefersBorder: false } },
        },
      ],
      (blob) => Buffer.from(blob, 'base64').toString('utf8'),
    );
    expect(declaration.html).toBe('<p>hi</p>');
    expect(declaration.domains).toEqual({ ...noScreenDomains(), connect: ['https://a.example.com', 'https://b.example.com'] });
    expect(declaration.permissions).toEqual(['camera']);
    expect(declaration.prefersBorder).toBe(false);
    expect(declaration.problems.join(' ')).toMatch(/frame-src \*.*left out/);
    expect(declaration.problems.join(' ')).toMatch(/frameDomains is not a list/);
  });

  it('decodes a blob, and refuses what is not a screen', () => {
    const decode = (blob: string) => Buffer.from(blob, 'base64').toString('utf8');
    expect(readScreenDeclaration('ui://s', [{ uri: 'ui://s', mimeType: MIME, blob: Buffer.from('<b>x</b>').toString('base64') }], decode).html).toBe('<b>x</b>');
    expect(() => readScreenDeclaration('ui://s', [{ uri: 'ui://s', mimeType: 'text/html', text: '<b>' }], decode)).toThrow(/is not a screen/);
    expect(() => readScreenDeclaration('ui://s', [], decode)).toThrow(/no content/);
  });

  it('finds the screen a tool names (nested, else the deprecated flat key), only ui://, and who may call it', () => {
    expect(toolScreen({ _meta: { ui: { resourceUri: 'ui://a' } } })).toEqual({ uri: 'ui://a', visibility: ['model', 'app'] });
    expect(toolScreen({ _meta: { 'ui/resourceUri': 'ui://b' } })).toEqual({ uri: 'ui://b', visibility: ['model', 'app'] });
    expect(toolScreen({ _meta: { ui: { resourceUri: 'https://evil.example/x.html' } } })).toBeUndefined();
    expect(toolScreen({})).toBeUndefined();
    expect(toolVisibility({ ui: { visibility: ['app'] } })).toEqual(['app']);
    expect(toolVisibility({ ui: { visibility: 'app' } })).toEqual(['model', 'app']);
  });
});

describe('the frame’s policy: declared ∩ allowed, written by Airlock', () => {
  const declared = { ...noScreenDomains(), connect: ['https://a.example.com', 'https://b.example.com'], resource: ['https://cdn.example.com'] };
  const allowed = { ...noScreenDomains(), connect: ['https://a.example.com', 'https://never-asked.example.com'] };

  it('gives a screen only what it asked for and the person allowed', () => {
    const domains = allowedScreenDomains(declared, allowed);
    expect(domains).toEqual({ ...noScreenDomains(), connect: ['https://a.example.com'] });
    const csp = screenContentSecurityPolicy(domains, 'airlock://app');
    expect(csp).toContain('connect-src https://a.example.com;');
    expect(csp).not.toContain('b.example.com');
    expect(csp).not.toContain('cdn.example.com');
    expect(csp).toContain("frame-src 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("form-action 'none'");
    expect(csp).toContain('frame-ancestors airlock://app');
  });

  it('is the spec’s restrictive default when nothing is allowed', () => {
    const csp = screenContentSecurityPolicy(noScreenDomains(), 'airlock://app');
    expect(csp).toMatch(/^default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;/);
    expect(csp).toContain("connect-src 'none'");
    expect(csp).toContain("base-uri 'self'");
  });

  it('turns off every device permission but those granted', () => {
    expect(screenPermissionsPolicy([])).toMatch(/^camera=\(\), microphone=\(\), geolocation=\(\), clipboard-write=\(\)/);
    expect(screenPermissionsPolicy(['microphone'])).toContain('microphone=self');
    expect(screenPermissionsPolicy(['microphone'])).toContain('camera=()');
    expect(screenPermissionsPolicy([])).toContain('clipboard-read=()');
    expect(screenAllowAttribute([])).toBe('');
    expect(screenAllowAttribute(['camera', 'clipboardWrite'])).toBe('camera; clipboard-write');
  });
});

describe('pinning a screen', () => {
  const read = (html: string, connect: string[] = []) => readScreen('ui://s', { contents: [{ uri: 'ui://s', mimeType: MIME, text: html, _meta: { ui: { csp: { connectDomains: connect } } } }] });

  it('fingerprints the page and what it asks for; says what changed', () => {
    const first = read('<p>1</p>');
    expect(read('<p>1</p>').fingerprint).toBe(first.fingerprint);
    const approved = { fingerprint: first.fingerprint, htmlSha256: first.htmlSha256, domains: first.declaration.domains, permissions: first.declaration.permissions, approvedAt: 'now' };
    const newDomain = read('<p>1</p>', ['https://exfil.example.com']);
    expect(newDomain.fingerprint).not.toBe(first.fingerprint);
    expect(screenChanges(approved, newDomain)).toEqual(['It now asks to connect to https://exfil.example.com.']);
    const newPage = read('<p>2</p>');
    expect(newPage.fingerprint).not.toBe(first.fingerprint);
    expect(screenChanges(approved, newPage)[0]).toMatch(/^Its page changed \(sha256 [0-9a-f]{12}… → [0-9a-f]{12}…\)\.$/);
  });
});

describe('decideScreenCall', () => {
  const tool = (visibility?: string[]) => ({ name: 't', inputSchema: { type: 'object' }, ...(visibility ? { _meta: { ui: { visibility } } } : {}) });
  const base = { server: 'apps', name: 't', stillApproved: true, recentCalls: 0, inFlight: 0 };

  it.each([
    ['its own tool, visible to both', { ...base, tool: tool() }, true, undefined],
    ['its own app-only tool', { ...base, tool: tool(['app']) }, true, undefined],
    ['a tool its server does not offer (another server’s)', { ...base, name: 'other__echo', tool: undefined }, false, 'not-its-tool'],
    ['a model-only tool', { ...base, tool: tool(['model']) }, false, 'not-for-apps'],
    ['after its screen changed', { ...base, tool: tool(), stillApproved: false }, false, 'screen-changed'],
    ['past the rate', { ...base, tool: tool(), recentCalls: SCREEN_CALLS_PER_MINUTE }, false, 'rate'],
    ['with too many running', { ...base, tool: tool(), inFlight: SCREEN_CALLS_IN_FLIGHT }, false, 'busy'],
  ])('%s', (_label, facts, pass, decidedBy) => {
    const verdict = decideScreenCall(facts);
    expect(verdict.pass).toBe(pass);
    if (!verdict.pass) expect(verdict.decidedBy).toBe(decidedBy);
  });

  it.each([
    ['https://modelcontextprotocol.io/', undefined],
    ['http://example.com/', /only https/],
    ['javascript:alert(1)', /only https/],
    ['https://bank.example@evil.example/', /name or password/],
    ['not a url', /not a web address/],
  ])('a link %s', (url, problem) => {
    if (problem) expect(linkProblem(url)).toMatch(problem);
    else expect(linkProblem(url)).toBeUndefined();
  });
});

describe('the screens’ origin', () => {
  const key = screenOriginKey('apps', '2026-01-01T00:00:00.000Z');
  const lookup = { appOrigin: 'airlock://app', policy: async (id: string, k: string) => (id === 'a'.repeat(32) && k === key ? { csp: "default-src 'none'; connect-src 'none'", permissionsPolicy: 'camera=()' } : undefined) };

  it('serves the relay page only for a live session of its own key, with the session’s headers', async () => {
    const ok = await screenFrameResponse('GET', new URL(`airlock-screen://${key}/relay.html?screen=${'a'.repeat(32)}`), key, lookup);
    expect(ok.status).toBe(200);
    expect(ok.headers['Content-Security-Policy']).toBe("default-src 'none'; connect-src 'none'");
    expect(ok.headers['Permissions-Policy']).toBe('camera=()');
    expect(ok.body).toContain('<meta name="airlock-host" content="airlock://app">');
    const otherKey = screenOriginKey('other', '2026-01-01T00:00:00.000Z');
    expect((await screenFrameResponse('GET', new URL(`airlock-screen://${otherKey}/relay.html?screen=${'a'.repeat(32)}`), otherKey, lookup)).status).toBe(404);
    expect((await screenFrameResponse('GET', new URL(`airlock-screen://${key}/relay.html?screen=${'b'.repeat(32)}`), key, lookup)).status).toBe(404);
    expect((await screenFrameResponse('POST', new URL(`airlock-screen://${key}/relay.html?screen=${'a'.repeat(32)}`), key, lookup)).status).toBe(404);
    expect((await screenFrameResponse('GET', new URL(`airlock-screen://${key}/../../etc/passwd`), key, lookup)).status).toBe(404);
    expect((await screenFrameResponse('GET', new URL(`airlock-screen://${key}/relay.js`), key, lookup)).headers['Content-Type']).toMatch(/javascript/);
  });

  it('gives each server, and each time it is added, an origin of its own', () => {
    expect(key).toMatch(/^s[0-9a-f]{24}$/);
    expect(screenOriginKey('apps', '2026-01-02T00:00:00.000Z')).not.toBe(key);
    expect(screenOriginKey('other', '2026-01-01T00:00:00.000Z')).not.toBe(key);
  });
});

/**
 * Screens with a real host and real servers in the real sandbox: a screen is
 * pinned at install like a tool, disclosed with what it asks for (refused
 * until allowed), does not render after it changed (a new page, a new
 * address) until approved again, and its frame's policy is what it asked for
 * and the person allowed. Its requests are decisions: a tool call reaches
 * only its own server's tools visible to apps, through the call pipeline as
 * “NAME's screen” (asking where the policy asks), at a bounded rate; a link
 * waits for the person; every one is in the audit log. What reached the
 * server is counted from its own log.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noScreenDomains } from '../../../shared/screens';
import type { ScreenOpenView } from '../../../shared/views';
import { screenOriginKey } from '../../../electron/core/screens/screen-frames';
import { SCREEN_CALLS_PER_MINUTE } from '../../../electron/core/screens/screen-decisions';
import { createTestHost, fixture, type TestHost } from '../host/host-support';

const PAGE = '<!doctype html><title>fixture</title><p>v1</p>';

let t: TestHost;
let html: string;
let declare: string;

/** How many calls of `tool` reached the fixture (its stderr, as the supervisor keeps it). */
function reached(server: string, tool: string): number {
  return t.host.supervisor.log(server).filter((line) => line.text.trim() === `called ${tool}`).length;
}

async function opened(server = 'apps', tool = 'show-screen'): Promise<Extract<ScreenOpenView, { ready: true }>> {
  const view = await t.host.screens.open(server, tool);
  if (!view.ready) throw new Error(`not ready: ${view.reason}`);
  return view;
}

async function screenEntries(method?: string) {
  const entries = await t.host.serverRequests.history({ server: 'apps', limit: 500 });
  return entries.filter((entry) => entry.kind === 'screen' && (method === undefined || entry.method === method));
}

beforeAll(async () => {
  t = await createTestHost();
  const files = t.folder('screen-files');
  html = join(files, 'screen.html');
  declare = join(files, 'declare.json');
  writeFileSync(html, PAGE);
  writeFileSync(declare, JSON.stringify({ connectDomains: ['https://a.example.com', 'https://b.example.com'] }));
  await t.add('apps', [process.execPath, fixture('screens/screen-fixture.mjs'), '--html', html, '--declare', declare]);
  await t.add('other', [process.execPath, fixture('servers/echo.mjs')]);
}, 60_000);
afterAll(() => t.close());

describe('pinned and disclosed at install', () => {
  it('lists the screen, the tools that name it, what it asks for — refused until allowed — as approved at the inspection', async () => {
    const view = await t.host.screens.list('apps');
    expect(view.screens).toHaveLength(1);
    const [screen] = view.screens;
    expect(screen).toMatchObject({ uri: 'ui://fixture/screen.html', tools: ['show-screen', 'app-count'], state: 'approved', changes: [] });
    expect(screen!.declared.connect).toEqual(['https://a.example.com', 'https://b.example.com']);
    expect(screen!.allowed).toEqual(noScreenDomains());
    expect(t.host.servers.record('apps').screens?.approved['ui://fixture/screen.html']?.htmlSha256).toBe(screen!.htmlSha256);
  });

  it('opens it with nothing allowed: the frame’s CSP connects nowhere, on the server’s own origin', async () => {
    const view = await opened();
    const key = screenOriginKey('apps', t.host.servers.record('apps').createdAt);
    expect(view.frameUrl).toBe(`airlock-screen://${key}/relay.html?screen=${view.id}`);
    expect(view.html).toBe(PAGE);
    const policy = t.host.screens.framePolicy(view.id, key)!;
    expect(policy.csp).toContain("connect-src 'none'");
    // It can send nothing out, so it may see a call's arguments as they are written.
    expect(view.argumentsBeforeDecision).toBe(true);
    expect(policy.csp).toContain('frame-ancestors airlock://app');
    // Another server's origin cannot serve this session.
    expect(t.host.screens.framePolicy(view.id, screenOriginKey('other', t.host.servers.record('other').createdAt))).toBeUndefined();
  });

  it('gives it, at its next opening, exactly the asked-for address the person allowed (recorded as a grant)', async () => {
    const view = await t.host.screens.setAllowed('apps', { ...noScreenDomains(), connect: ['https://a.example.com'] }, [], 'window');
    expect(view.screens[0]!.allowed.connect).toEqual(['https://a.example.com']);
    const screen = await opened();
    const csp = t.host.screens.framePolicy(screen.id, screenOriginKey('apps', t.host.servers.record('apps').createdAt))!.csp;
    expect(csp).toContain('connect-src https://a.example.com;');
    expect(csp).not.toContain('b.example.com');
    // Now it could send a call's arguments out: it gets them only once the call was allowed.
    expect(screen.argumentsBeforeDecision).toBe(false);
    await expect(t.host.screens.setAllowed('apps', { ...noScreenDomains(), connect: ['https://x.example.com; script-src *'] }, [], 'window')).rejects.toThrow(/not a web address Airlock can allow exactly/);
    const changes = await t.host.activity.entries({ server: 'apps', limit: 50 });
    expect(changes.some((entry) => entry.kind === 'change' && JSON.stringify(entry).includes('screens may connect to https://a.example.com'))).toBe(true);
  });
});

describe('a screen that changes after approval', () => {
  it('does not render with a new page until approved again, saying what changed', async () => {
    writeFileSync(html, '<!doctype html><p>v2: now different</p>');
    const view = await t.host.screens.open('apps', 'show-screen');
    expect(view.ready).toBe(false);
    if (view.ready) return;
    expect(view.reason).toMatch(/changed since you approved it/);
    expect(view.screen?.state).toBe('changed');
    expect(view.screen?.changes[0]).toMatch(/^Its page changed/);
  });

  it('does not render when it asks for a new address, and approving needs the fingerprint the person saw', async () => {
    writeFileSync(declare, JSON.stringify({ connectDomains: ['https://a.example.com', 'https://b.example.com', 'https://exfil.example.com'] }));
    const listed = (await t.host.screens.list('apps')).screens[0]!;
    expect(listed.state).toBe('changed');
    expect(listed.changes).toContain('It now asks to connect to https://exfil.example.com.');
    const seen = listed.fingerprint!;
    writeFileSync(declare, JSON.stringify({ connectDomains: ['https://evil.example.com'] }));
    await expect(t.host.screens.approve('apps', listed.uri, seen, 'window')).rejects.toThrow(/changed again since you looked/);
    writeFileSync(declare, JSON.stringify({ connectDomains: ['https://a.example.com', 'https://b.example.com', 'https://exfil.example.com'] }));
    const approved = await t.host.screens.approve('apps', listed.uri, seen, 'window');
    expect(approved.screens[0]!.state).toBe('approved');
    // The new address is asked for, not allowed: approving a screen grants it nothing.
    expect(approved.screens[0]!.allowed.connect).toEqual(['https://a.example.com']);
    expect((await opened()).html).toBe('<!doctype html><p>v2: now different</p>');
    const changes = await t.host.activity.entries({ server: 'apps', limit: 50 });
    expect(changes.some((entry) => entry.kind === 'change' && JSON.stringify(entry).includes('screen approved: ui://fixture/screen.html'))).toBe(true);
  });
});

describe('a screen’s tool calls', () => {
  it("reach its own server’s app-visible tools through the call pipeline, as “apps's screen”", async () => {
    const screen = await opened();
    const before = reached('apps', 'app-count');
    const result = await t.host.screens.callTool(screen.id, 'app-count', {});
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ count: expect.any(Number) });
    // The server's stderr line travels on its own pipe: it can arrive after the result does.
    await expect.poll(() => reached('apps', 'app-count')).toBe(before + 1);
    // The outcome is written off the caller's path, right after the result is passed on.
    await expect
      .poll(async () => (await t.host.activity.entries({ server: 'apps', tool: 'app-count', limit: 5 })).map((entry) => [entry.kind, entry.callerKind, entry.caller]))
      .toEqual(
        expect.arrayContaining([
          ['decision', 'screen', "apps's screen"],
          ['outcome', 'screen', "apps's screen"],
        ]),
      );
  });

  it('are refused, recorded, and reach nothing, for a model-only tool, another server’s tool, or a closed screen', async () => {
    const screen = await opened();
    const modelOnly = await t.host.screens.callTool(screen.id, 'model-only', {});
    expect(modelOnly).toMatchObject({ isError: true });
    expect(JSON.stringify(modelOnly.content)).toMatch(/not for screens/);
    expect(reached('apps', 'model-only')).toBe(0);
    for (const name of ['echo', 'other__echo']) {
      const foreign = await t.host.screens.callTool(screen.id, name, { message: 'hi' });
      expect(foreign.isError).toBe(true);
      expect(JSON.stringify(foreign.content)).toMatch(/only its own server's tools/);
    }
    expect(reached('other', 'echo')).toBe(0);
    t.host.screens.close(screen.id);
    await expect(t.host.screens.callTool(screen.id, 'app-count', {})).rejects.toThrow(/This screen is closed/);
    const refusals = await screenEntries('tools/call');
    expect(refusals.filter((entry) => entry.decision === 'denied').length).toBeGreaterThanOrEqual(3);
  });

  it('ask in Airlock’s own confirmation for a destructive tool, naming the screen — and with nobody to ask are denied', async () => {
    const screen = await opened();
    t.ask.available = true;
    const pending = t.host.screens.callTool(screen.id, 'wipe', {});
    let confirmation;
    for (let i = 0; i < 200 && !confirmation; i += 1) {
      confirmation = t.host.approvals.pending()[0];
      if (!confirmation) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(confirmation?.headline).toContain("apps's screen wants to run apps › wipe");
    expect(confirmation?.caller).toEqual({ kind: 'screen', server: 'apps' });
    expect(reached('apps', 'wipe')).toBe(0);
    t.host.approvals.answer(confirmation!.id, { choice: 'deny' }, { shell: 'window' });
    expect((await pending).isError).toBe(true);
    t.ask.available = false;
    expect((await t.host.screens.callTool(screen.id, 'wipe', {})).isError).toBe(true);
    expect(reached('apps', 'wipe')).toBe(0);
  });

  it('are cut off past the rate, and a flood leaves a bounded log', async () => {
    const screen = await opened();
    const before = reached('apps', 'app-count');
    const beforeEntries = (await screenEntries('tools/call')).length;
    const results = [];
    for (let i = 0; i < SCREEN_CALLS_PER_MINUTE + 40; i += 1) results.push(await t.host.screens.callTool(screen.id, 'app-count', {}));
    const through = reached('apps', 'app-count') - before;
    expect(through).toBeLessThanOrEqual(SCREEN_CALLS_PER_MINUTE);
    expect(results.filter((result) => result.isError).length).toBeGreaterThanOrEqual(40);
    expect((await screenEntries('tools/call')).length - beforeEntries).toBeLessThanOrEqual(5);
  }, 60_000);
});

describe('a screen’s links', () => {
  it('are held for the person with the full address, recorded, and opened only on their Open', async () => {
    const screen = await opened();
    const asked = await t.host.screens.openLink(screen.id, 'https://modelcontextprotocol.io/docs');
    expect(asked.url).toBe('https://modelcontextprotocol.io/docs');
    expect(await t.host.screens.answerLink(asked.requestId, true)).toEqual({ url: 'https://modelcontextprotocol.io/docs' });
    await expect(t.host.screens.answerLink(asked.requestId, true)).rejects.toThrow(/no longer waiting/);
    const declined = await t.host.screens.openLink(screen.id, 'https://example.com/');
    expect(await t.host.screens.answerLink(declined.requestId, false)).toEqual({});
    await expect(t.host.screens.openLink(screen.id, 'javascript:alert(1)')).rejects.toThrow(/only https/);
    const links = await screenEntries('ui/open-link');
    expect(links.map((entry) => entry.outcome ?? entry.decision)).toEqual(expect.arrayContaining(['opened', 'declined', 'denied']));
  });
});

describe('the window only', () => {
  it('opens screens and relays their requests only for Airlock’s window; the command line may list and decide', async () => {
    const terminal = t.host.ipcHandlers({ kind: 'terminal', origin: 'cli-1' });
    await expect(Promise.resolve().then(() => terminal['screens.open']({ server: 'apps', tool: 'show-screen' }))).rejects.toThrow(/only in Airlock’s window/);
    const screen = await opened();
    await expect(Promise.resolve().then(() => terminal['screens.callTool']({ id: screen.id, name: 'app-count' }))).rejects.toThrow(/only in Airlock’s window/);
    expect((await terminal['screens.list']({ server: 'apps' })).screens).toHaveLength(1);
  });
});

// Real published servers from npm, under the supervisor (unsandboxed pass-through launcher).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixtureSpec, isAlive, publishedSpec, recordDir, supervised } from './support/fixtures';
import { makeSupervisor } from './support/harness';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

beforeAll(() => {
  process.env.AIRLOCK_TEST_CANARY_SECRET = 'must-not-leak';
});
afterAll(() => {
  delete process.env.AIRLOCK_TEST_CANARY_SECRET;
});

describe('@modelcontextprotocol/server-everything', () => {
  it('starts, lists its tools, calls echo, reports progress, and sees exactly the plan environment', async () => {
    const { supervisor } = makeSupervisor({ everything: supervised('everything', publishedSpec('server-everything', ['stdio'], { GRANTED: 'yes' })) });
    cleanups.push(() => supervisor.stopAll());
    await supervisor.start('everything');

    const names = supervisor.tools.get('everything')!.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-env', 'trigger-long-running-operation']));
    expect(supervisor.tools.lookup('everything', 'get-env')!.definition.annotations).toMatchObject({ readOnlyHint: true });

    const echoed = await supervisor.callTool('everything', 'echo', { message: 'hi from airlock' });
    expect(JSON.stringify(echoed.content)).toContain('hi from airlock');

    // SECURITY: invariant 5 — nothing from Airlock's own environment is inherited.
    const [envText] = (await supervisor.callTool('everything', 'get-env', {})).content;
    const env = JSON.parse(envText?.type === 'text' ? envText.text : '{}') as Record<string, string>;
    expect(Object.keys(env).sort()).toEqual(['GRANTED', 'HOME', 'PATH', 'TMPDIR']);
    expect(JSON.stringify(env)).not.toContain('must-not-leak');

    const progress: number[] = [];
    await supervisor.callTool('everything', 'trigger-long-running-operation', { duration: 0.3, steps: 3 }, { onProgress: (p) => progress.push(p.progress) });
    expect(progress.length).toBeGreaterThanOrEqual(1);

    const pid = supervisor.status('everything').pid!;
    await supervisor.stop('everything');
    expect(isAlive(pid)).toBe(false);
  });
});

describe('@modelcontextprotocol/server-memory', () => {
  it('starts, lists its tools, writes and reads its graph', async () => {
    const rec = recordDir();
    const { supervisor } = makeSupervisor({ memory: supervised('memory', publishedSpec('server-memory', [], { MEMORY_FILE_PATH: rec.file('memory.jsonl') })) });
    cleanups.push(rec.cleanup, () => supervisor.stopAll());
    await supervisor.start('memory');
    expect(supervisor.tools.get('memory')!.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['create_entities', 'read_graph']));
    await supervisor.callTool('memory', 'create_entities', { entities: [{ name: 'Airlock', entityType: 'app', observations: ['hosts MCP servers'] }] });
    const graph = await supervisor.callTool('memory', 'read_graph', {});
    expect(JSON.stringify(graph)).toContain('hosts MCP servers');
    await supervisor.stop('memory');
  });
});

describe('several servers at once', () => {
  it('runs a published server and a fixture side by side, stopping each on its own', async () => {
    const { supervisor } = makeSupervisor({
      everything: supervised('everything', publishedSpec('server-everything', ['stdio'])),
      echo: supervised('echo', fixtureSpec('echo.mjs')),
    });
    cleanups.push(() => supervisor.stopAll());
    await Promise.all([supervisor.start('everything'), supervisor.start('echo')]);
    await supervisor.stop('echo');
    expect(supervisor.state('everything')).toBe('ready');
    expect(JSON.stringify((await supervisor.callTool('everything', 'echo', { message: 'x' })).content)).toContain('x');
    expect(supervisor.tools.all().map((s) => s.server).sort()).toEqual(['echo', 'everything']);
  });
});

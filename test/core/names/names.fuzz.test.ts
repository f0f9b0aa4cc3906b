/**
 * Names are data (issue 9, item 5): a server chooses its tool names, their
 * argument names, its prompt names and its title. Names that every plain
 * JavaScript object inherits (`constructor`, `__proto__`, `toString`, …) go
 * through add (the install flow), show, rules, the gateway's listing and
 * the views the renderer and the CLI print — first as a real hostile server
 * in the real sandbox, then as fuzzed names through the pure parts.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxProfile, ownEntry, type ServerRecord, type ToolDefinition } from '../../../shared/domain';
import { channels } from '../../../shared/ipc';
import { formatDetail, formatProbe } from '../../../electron/cli/format';
import { dispatchIpc } from '../../../electron/core/ipc/dispatch';
import { createGatewayServer } from '../../../electron/core/gateway/gateway-server';
import { buildGatewayListing } from '../../../electron/core/gateway/tool-names';
import { decide } from '../../../electron/core/policy/decide';
import { AirlockStore } from '../../../electron/core/store/store';
import { fingerprintTool } from '../../../electron/core/tools/fingerprint';
import { serverSummary, toolView, type ToolViewContext } from '../../../electron/core/views/views';
import { argumentsFrom, fieldsOf } from '../../../renderer/schema-form';
import { createTestHost, fixture, type TestHost } from '../host/host-support';
import { loadMcpTypes } from '../../../electron/core/mcp-types';

// The gateway's listing checks definitions with the SDK's schema, loaded first (as the gateway does).
await loadMcpTypes();

/** Every name a plain object inherits, and a few that look like them. */
const INHERITED = [...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype', '__defineSetter__'];
/** What the hostile fixture names everything (see test/fixtures/names/hostile-names.mjs). */
const FIXTURE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__lookupGetter__'];

/**
 * Argument names as they cross the protocol: the MCP SDK's own schemas drop an
 * own `__proto__` key on both sides (the listing Airlock reads and the call the
 * server reads), so that argument is neither shown nor sent — consistently.
 */
const ARGUMENT_NAMES = FIXTURE_NAMES.filter((name) => name !== '__proto__');

function lines(path: string): string[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

describe('a server whose every name is an inherited property, in the real sandbox', () => {
  let t: TestHost;
  let records: string;

  beforeAll(async () => {
    t = await createTestHost();
    records = t.folder('records');
  });
  afterAll(() => t.close());

  it('add: the probe reports every tool and prompt by its own name, and commit approves each one', async () => {
    const disclosure = await t.host.install.prepare({ kind: 'local', argv: [process.execPath, fixture('names/hostile-names.mjs'), records] });
    const report = await t.host.install.probe(disclosure.draftId);
    expect(report.tools.map((tool) => tool.name).sort()).toEqual([...FIXTURE_NAMES].sort());
    expect(report.prompts.map((prompt) => prompt.name).sort()).toEqual([...FIXTURE_NAMES].sort());
    expect(report.serverInfo).toMatchObject({ name: '__proto__', version: 'constructor', title: 'hasOwnProperty' });
    // What the person reviews at install: every tool as seen (not "new"), every argument by its name.
    for (const tool of report.tools) {
      expect(tool.isNew).toBe(false);
      expect(Object.keys(tool.inputSchema.properties as object).sort()).toEqual([...ARGUMENT_NAMES].sort());
    }
    expect(formatProbe(report)).toContain('__proto__');
    const { unsandboxed: _u, ...profile } = { ...defaultSandboxProfile(), filesystem: { read: [], write: [records], persistentData: false } };
    await t.host.install.commit({ draftId: disclosure.draftId, name: 'names', profile, trusted: false, secrets: {}, enable: true });
    const record = t.host.servers.record('names');
    expect(Object.keys(record.approvedTools).sort()).toEqual([...FIXTURE_NAMES].sort());
    for (const name of FIXTURE_NAMES) expect(ownEntry(record.approvedTools, name)?.definition.name).toBe(name);
  });

  it('show: the detail page and `airlock show` list every tool, none pending, none new', async () => {
    const detail = await t.host.servers.detail('names');
    expect(detail.tools.map((tool) => tool.name).sort()).toEqual([...FIXTURE_NAMES].sort());
    expect(detail.pendingChanges).toBe(0);
    for (const tool of detail.tools) {
      expect(tool.isNew).toBe(false);
      expect(tool.pendingChange).toBeUndefined();
      expect(tool.approvedAt).toBeDefined();
    }
    // The IPC contract's own parse keeps every argument name (what the window gets).
    const viaIpc = await dispatchIpc(t.host.ipcHandlers(), 'servers.get', { name: 'names' });
    expect(viaIpc.ok).toBe(true);
    const tools = (viaIpc as { value: { tools: Array<{ inputSchema: { properties: object } }> } }).value.tools;
    for (const tool of tools) expect(Object.keys(tool.inputSchema.properties).sort()).toEqual([...ARGUMENT_NAMES].sort());
    const text = formatDetail(detail);
    for (const name of FIXTURE_NAMES) expect(text).toContain(`  ${name} — `);
  });

  it('rules: a rule for each name is saved, listed as current, and removed, by its own name', async () => {
    const detail = await t.host.servers.detail('names');
    for (const tool of detail.tools) {
      await t.host.policy.addRule({ server: 'names', tool: tool.name, effect: 'deny', fingerprint: tool.fingerprint });
    }
    const rules = t.host.policy.rules().filter((rule) => rule.server === 'names');
    expect(rules.map((rule) => rule.tool).sort()).toEqual([...FIXTURE_NAMES].sort());
    expect(rules.every((rule) => rule.current)).toBe(true);
    for (const name of FIXTURE_NAMES) t.host.policy.removeRule('names', name);
    expect(t.host.policy.rules().filter((rule) => rule.server === 'names')).toEqual([]);
  });

  it('approving a tool named __proto__ or constructor again keeps every approval as its own entry', async () => {
    for (const name of ['__proto__', 'constructor']) {
      const tool = t.host.supervisor.tools.lookup('names', name)!;
      await t.host.serverSettings.approveChange('names', name, tool.fingerprint);
    }
    const approved = t.host.servers.record('names').approvedTools;
    expect(Object.keys(approved).sort()).toEqual([...FIXTURE_NAMES].sort());
    expect(Object.getPrototypeOf(approved)).toBeNull();
    expect(ownEntry(approved, '__proto__')?.definition.name).toBe('__proto__');
  });

  it('calls: each tool is decided by its own definition and gets exactly the arguments sent, names included', async () => {
    const args = Object.fromEntries(FIXTURE_NAMES.map((name) => [name, `value of ${name}`]));
    // As a client's JSON arrives: `__proto__` an own key like the others.
    const wire = JSON.parse(JSON.stringify(args)) as Record<string, unknown>;
    for (const name of FIXTURE_NAMES) {
      const result = await t.host.calls.call({ server: 'names', tool: name, arguments: wire, caller: { kind: 'user' } });
      expect(result.outcome, `${name}: ${result.message}`).toBe('ok');
      expect(result.decision.fingerprint).toBe(t.host.supervisor.tools.lookup('names', name)!.fingerprint);
    }
    const seen = lines(join(records, 'calls')).map((line) => JSON.parse(line) as { tool: string; arguments: Record<string, unknown> });
    expect(seen.map((entry) => entry.tool)).toEqual(FIXTURE_NAMES);
    for (const entry of seen) expect(Object.keys(entry.arguments).sort()).toEqual([...ARGUMENT_NAMES].sort());
  });

  it('secrets and the audit log: names that are inherited properties are entries like any other', async () => {
    for (const name of ['constructor', '__proto__', 'toString']) await t.host.serverSettings.setSecret('names', name, `secret ${name}`);
    expect((await t.host.servers.detail('names')).secretsSet).toEqual(['__proto__', 'constructor', 'toString']);
    expect(t.host.secrets.values('names', ['constructor', '__proto__', 'toString', 'valueOf'])).toEqual(
      Object.assign(Object.create(null), { constructor: 'secret constructor', ['__proto__']: 'secret __proto__', toString: 'secret toString' }),
    );
    const entries = await t.host.activity.entries({ server: 'names', tool: '__proto__' });
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((entry) => entry.tool === '__proto__')).toBe(true);
  });

  it('gateway: a real MCP client lists every tool as names__<name> and calls reach the right one', async () => {
    const server = createGatewayServer(t.host.gateway.core(), { clientName: 'Fuzz Client' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'fuzz', version: '1.0.0' });
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(FIXTURE_NAMES.map((name) => `names__${name}`).sort());
    await client.close();
  });
});

describe('fuzzed names through the pure parts', () => {
  const nameArb = fc.oneof(fc.constantFrom(...INHERITED), fc.string({ minLength: 1, maxLength: 12 }));
  const namesArb = fc.uniqueArray(nameArb, { minLength: 1, maxLength: 6 });

  function definition(name: string, argNames: readonly string[]): ToolDefinition {
    const properties = Object.create(null) as Record<string, unknown>;
    for (const arg of argNames) Object.defineProperty(properties, arg, { value: { type: 'string' }, enumerable: true });
    return JSON.parse(JSON.stringify({ name, title: name, inputSchema: { type: 'object', properties }, annotations: { readOnlyHint: true } })) as ToolDefinition;
  }

  /** A record approving `approved`; `plain`: its approved set is a plain object, as code builds in memory. */
  function recordWith(approved: readonly ToolDefinition[], plain = false): ServerRecord {
    const approvedTools = (plain ? {} : Object.create(null)) as ServerRecord['approvedTools'];
    for (const def of approved) Object.defineProperty(approvedTools, def.name, { value: { fingerprint: fingerprintTool(def), definition: def, approvedAt: '2026-12-01T00:00:00.000Z' }, enumerable: true });
    return {
      name: 'fuzz',
      spec: { command: '/bin/true', args: [], env: {} },
      provenance: { kind: 'local', executable: '/bin/true', executableSha256: '0'.repeat(64) },
      profile: defaultSandboxProfile(),
      trusted: false,
      enabled: true,
      approvedTools,
      createdAt: '2026-12-01T00:00:00.000Z',
    };
  }

  const context = (record: ServerRecord): ToolViewContext => ({
    record,
    rules: [],
    sessionGrants: [],
    mode: 'default',
    sandboxAvailable: true,
    otherServersTools: new Map(),
    now: Date.parse('2026-12-02T00:00:00Z'),
  });

  it('the store keeps every approved tool and argument name through a write and a read', () => {
    const root = mkdtempSync(join(tmpdir(), 'airlock-names-'));
    fc.assert(
      fc.property(namesArb, namesArb, (toolNames, argNames) => {
        const store = new AirlockStore(join(root, String(Math.random()).slice(2)));
        const defs = toolNames.map((name) => definition(name, argNames));
        store.update((data) => ({ ...data, servers: { fuzz: recordWith(defs) } }));
        const read = store.read().servers.fuzz!;
        expect(Object.keys(read.approvedTools).sort()).toEqual([...toolNames].sort());
        for (const def of defs) {
          const kept = ownEntry(read.approvedTools, def.name)!;
          expect(kept.fingerprint).toBe(fingerprintTool(def));
          expect(Object.keys(kept.definition.inputSchema.properties as object).sort()).toEqual([...argNames].sort());
        }
      }),
      { numRuns: 40 },
    );
  });

  it('tool views, summaries and decisions never read an inherited property as an approval', () => {
    fc.assert(
      fc.property(namesArb, namesArb, fc.boolean(), fc.boolean(), (toolNames, argNames, approveAll, plain) => {
        const defs = toolNames.map((name) => definition(name, argNames));
        const record = recordWith(approveAll ? defs : [], plain);
        const tools = defs.map((def) => ({ definition: def, fingerprint: fingerprintTool(def) }));
        for (const tool of tools) {
          const view = toolView(tool.definition, tool.fingerprint, context(record));
          expect(view.isNew).toBe(!approveAll);
          expect(view.pendingChange).toBeUndefined();
          expect(channels['servers.get'].response.shape.tools.element.safeParse(view).success).toBe(true);
          const decision = decide(
            { server: 'fuzz', tool: tool.definition.name, arguments: {}, caller: { kind: 'client', name: 'x' } },
            { tool, server: { trusted: true, profile: record.profile, sandboxAvailable: true }, rules: [], sessionGrants: [], mode: 'default', approved: ownEntry(record.approvedTools, tool.definition.name) },
            0,
          );
          expect(decision.decidedBy.kind).not.toBe('policy-error');
        }
        expect(serverSummary(record, { state: 'ready' }, tools).pendingChanges).toBe(0);
      }),
      { numRuns: 200 },
    );
  });

  it('the gateway lists each valid name once, under its own address', () => {
    fc.assert(
      fc.property(namesArb, (toolNames) => {
        const listing = buildGatewayListing(toolNames.map((name) => ({ server: 'fuzz', definition: definition(name, []) })));
        for (const tool of listing.tools) expect(listing.addresses.get(tool.name)?.tool).toBe(tool.name.slice('fuzz__'.length));
        expect(listing.tools.length + listing.skipped.length).toBe(toolNames.length);
      }),
      { numRuns: 200 },
    );
  });

  it('the console form and the contract keep every argument name the person fills in', () => {
    fc.assert(
      fc.property(namesArb, (argNames) => {
        const schema = definition('t', argNames).inputSchema;
        const fields = fieldsOf(schema)!;
        expect(fields.map((field) => field.name).sort()).toEqual([...argNames].sort());
        const values = Object.create(null) as Record<string, string>;
        for (const name of argNames) Object.defineProperty(values, name, { value: `v:${name}`, enumerable: true });
        const built = argumentsFrom(fields, values);
        expect(built.error).toBeUndefined();
        expect(Object.keys(built.value!).sort()).toEqual([...argNames].sort());
        const request = channels['tools.call'].request.safeParse({ server: 'fuzz', tool: 't', arguments: built.value });
        expect(request.success).toBe(true);
        expect(Object.keys((request.data as { arguments: object }).arguments).sort()).toEqual([...argNames].sort());
      }),
      { numRuns: 200 },
    );
  });
});


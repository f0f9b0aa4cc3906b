import { describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type Provenance, type ServerRecord } from '../../../shared/domain';
import { commandMatches, covers, domainRefusal, serverBlock, settingLock, type PolicyServer } from '../../../electron/core/managed-policy/policy-rules';
import { policyState, type PolicyState } from '../../../electron/core/managed-policy/policy-state';
import { parsePolicyJson } from '../../../electron/core/managed-policy/policy-json';
import { decide, REASONS } from '../../../electron/core/policy/decide';
import { call, DESTRUCTIVE, facts, NOW, READ_ONLY, ruleFor, tool } from '../policy/helpers';

const HOME = '/home/me';

/** The policy in force for this text, as the room would read it from a file. */
function stateOf(text: string, location = '/etc/airlock/managed-policy.json'): PolicyState {
  const parsed = parsePolicyJson(text);
  return policyState([{ location, status: 'read', value: parsed.value, positionOf: parsed.positionOf }], [location]);
}

function server(provenance: Provenance, extra: Partial<ServerRecord> = {}): PolicyServer {
  return {
    name: 'srv',
    spec: { command: '/usr/bin/node', args: ['/data/servers/x/index.js'], env: {} },
    provenance,
    profile: defaultSandboxProfile(),
    ...extra,
  };
}

const npm = (name: string, version = '1.2.3'): Provenance => ({ kind: 'npm', name, version, integrity: 'sha512-x', installDir: '/data/servers/x' });
const pypi = (name: string, version = '2.0.0'): Provenance => ({ kind: 'pypi', name, version, sha256: 'a', file: 'x.whl', packageCount: 1, lockSha256: 'b', installDir: '/d' });
const local: Provenance = { kind: 'local', executable: '/usr/bin/docker', executableSha256: 'c' };
const remote = (url: string): Partial<ServerRecord> => ({ spec: { command: url, args: [], env: {}, remote: { url, transport: 'auto', headers: [] } } });

describe('which servers a policy lets run (deny wins; no allow list: anything not denied)', () => {
  it.each([
    // [policy, server, blocked by]
    ['{"version":1}', server(npm('@acme/notes')), undefined],
    ['{"version":1,"deniedServers":[{"npm":"@evil/*"}]}', server(npm('@evil/x')), 'deniedServers'],
    ['{"version":1,"deniedServers":[{"npm":"@evil/*"}]}', server(npm('@acme/notes')), undefined],
    ['{"version":1,"allowedServers":[{"npm":"@acme/*"}]}', server(npm('@acme/notes')), undefined],
    ['{"version":1,"allowedServers":[{"npm":"@acme/*"}]}', server(npm('@other/notes')), 'allowedServers'],
    // A deny wins over an allow that names the same server.
    ['{"version":1,"allowedServers":[{"npm":"@acme/*"}],"deniedServers":[{"npm":"@acme/bad"}]}', server(npm('@acme/bad')), 'deniedServers'],
    // Version ranges.
    ['{"version":1,"allowedServers":[{"npm":"@acme/notes@^1.2.0"}]}', server(npm('@acme/notes', '1.9.0')), undefined],
    ['{"version":1,"allowedServers":[{"npm":"@acme/notes@^1.2.0"}]}', server(npm('@acme/notes', '2.0.0')), 'allowedServers'],
    ['{"version":1,"deniedServers":[{"npm":"left-pad@<1.0.0"}]}', server(npm('left-pad', '0.9.0')), 'deniedServers'],
    // PyPI names are compared as PEP 503 names.
    ['{"version":1,"allowedServers":[{"pypi":"mcp-server-time"}]}', server(pypi('MCP_Server.Time')), undefined],
    ['{"version":1,"allowedServers":[{"pypi":"mcp-server-time==2.0.0"}]}', server(pypi('mcp-server-time', '2.1.0')), 'allowedServers'],
    // Registry listings.
    ['{"version":1,"allowedServers":[{"registry":"io.github.acme/*"}]}', server({ ...npm('x'), registry: { baseUrl: 'https://r', name: 'io.github.acme/notes', version: '1', status: 'active' } } as Provenance), undefined],
    ['{"version":1,"allowedServers":[{"registry":"io.github.acme/*"}]}', server(npm('x')), 'allowedServers'],
    // URLs (remote servers).
    ['{"version":1,"allowedServers":[{"url":"https://mcp.acme.example/**"}]}', server({ kind: 'remote', url: 'https://mcp.acme.example/mcp', host: 'mcp.acme.example', transport: 'streamable-http' }, remote('https://mcp.acme.example/mcp')), undefined],
    ['{"version":1,"allowedServers":[{"url":"https://mcp.acme.example/**"}]}', server({ kind: 'remote', url: 'https://evil.example/mcp', host: 'evil.example', transport: 'streamable-http' }, remote('https://evil.example/mcp')), 'allowedServers'],
    ['{"version":1,"deniedServers":[{"url":"https://**"}]}', server({ kind: 'remote', url: 'https://a.example', host: 'a.example', transport: 'sse' }, remote('https://a.example')), 'deniedServers'],
    // Command lines.
    ['{"version":1,"deniedServers":[{"command":["**/docker","**"]}]}', server(local, { spec: { command: '/usr/bin/docker', args: ['run', 'x'], env: {} } }), 'deniedServers'],
    ['{"version":1,"deniedServers":[{"command":["**/docker"]}]}', server(local, { spec: { command: '/usr/bin/docker', args: ['run'], env: {} } }), undefined],
    // The organisation's own servers run even beside an allow list that does not name them.
    ['{"version":1,"allowedServers":[],"servers":{"notes":{"npm":"@acme/notes@1.2.3"}}}', server(npm('@acme/notes', '1.2.3')), undefined],
    ['{"version":1,"allowedServers":[],"servers":{"notes":{"npm":"@acme/notes@1.2.3"}}}', server(npm('@acme/notes', '1.2.4')), 'allowedServers'],
  ])('%s and %o → %s', (policy, srv, key) => {
    expect(serverBlock(stateOf(policy), srv, HOME)?.key).toBe(key);
  });

  it('names the rule in the message a person sees', () => {
    const block = serverBlock(stateOf('{"version":1,"deniedServers":[{"npm":"@evil/*"}]}'), server(npm('@evil/x')), HOME)!;
    expect(block.message).toBe('Blocked by your organisation\'s policy (deniedServers: {"npm":"@evil/*"}): the organisation does not allow this server.');
  });

  it('bounds sandbox consent, network grants and writes', () => {
    const unsandboxed = server(local, { profile: { ...defaultSandboxProfile(), unsandboxed: { consentedAt: 'now' } } });
    expect(serverBlock(stateOf('{"version":1,"requireSandbox":true}'), unsandboxed, HOME)?.key).toBe('requireSandbox');
    expect(serverBlock(stateOf('{"version":1,"allowUnsandboxed":false}'), unsandboxed, HOME)?.key).toBe('allowUnsandboxed');
    const networked = server(local, { profile: { ...defaultSandboxProfile(), network: { allowedDomains: ['api.github.com'] } } });
    expect(serverBlock(stateOf('{"version":1,"network":{"allowedDomains":["*.acme.example"]}}'), networked, HOME)?.key).toBe('network.allowedDomains');
    expect(serverBlock(stateOf('{"version":1,"network":{"allowedDomains":["*.github.com"]}}'), networked, HOME)).toBeUndefined();
    expect(serverBlock(stateOf('{"version":1,"network":{"deniedDomains":["api.github.com"]}}'), networked, HOME)?.key).toBe('network.deniedDomains');
    const writer = server(local, { profile: { ...defaultSandboxProfile(), filesystem: { read: [], write: ['/srv/data'], persistentData: false } } });
    expect(serverBlock(stateOf('{"version":1,"allowWritesOutsideHome":false}'), writer, HOME)?.key).toBe('allowWritesOutsideHome');
    const homeWriter = server(local, { profile: { ...defaultSandboxProfile(), filesystem: { read: [], write: ['/home/me/notes'], persistentData: false } } });
    expect(serverBlock(stateOf('{"version":1,"allowWritesOutsideHome":false}'), homeWriter, HOME)).toBeUndefined();
  });

  it('an unreadable policy blocks every server and locks every setting, naming the file and line', () => {
    const state = policyState([{ location: '/etc/airlock/managed-policy.json', status: 'unreadable', problem: 'it is not valid JSON: expected , or }', line: 7 }], ['/etc/airlock/managed-policy.json']);
    const block = serverBlock(state, server(npm('@acme/notes')), HOME)!;
    expect(block.key).toBe('unreadable');
    expect(block.message).toContain('/etc/airlock/managed-policy.json, line 7');
    for (const setting of ['mode', 'trust', 'unsandboxed', 'httpGateway', 'alwaysForDestructive', 'samplingWithoutReview', 'registry', 'otlp'] as const) {
      expect(settingLock(state, setting)?.location).toContain('line 7');
    }
    expect(domainRefusal(state, 'example.com')).toBeDefined();
  });
});

describe('domain bounds', () => {
  it.each([
    ['*', 'a.b', true],
    ['*.example.com', 'api.example.com', true],
    ['*.example.com', '*.api.example.com', true],
    ['*.example.com', '*.example.com', true],
    ['*.example.com', 'example.com', false],
    ['*.example.com', '*.com', false],
    ['example.com', 'example.com', true],
    ['example.com', '*', false],
  ])('%s covers %s: %s', (pattern, grant, expected) => expect(covers(pattern, grant)).toBe(expected));

  it('a wildcard grant that takes in a denied host is refused', () => {
    expect(domainRefusal(stateOf('{"version":1,"network":{"deniedDomains":["evil.example.com"]}}'), '*.example.com')?.key).toBe('network.deniedDomains');
  });
});

describe('command matchers', () => {
  it.each([
    [['node', '*'], ['node', 'index.js'], true],
    [['node', '*'], ['node', 'a/index.js'], false],
    [['node', '**'], ['node'], true],
    [['node', '**'], ['node', 'a', 'b'], true],
    [['**/uvx', 'mcp-*'], ['/home/me/.local/bin/uvx', 'mcp-server-git'], true],
  ])('%o matches %o: %s', (patterns, argv, expected) => expect(commandMatches(patterns, argv)).toBe(expected));
});

describe('the schema: unknown keys and bad values are errors with the line', () => {
  it('an unknown key is named, with its line', () => {
    const state = stateOf('{\n  "version": 1,\n  "allowedServers": [\n    { "npmm": "x" }\n  ]\n}');
    expect(state.status).toBe('unreadable');
    if (state.status !== 'unreadable') return;
    expect(state.problems[0]).toMatchObject({ line: 4, key: 'allowedServers[0].npmm' });
    expect(state.problems[0]!.problem).toContain('unknown key "npmm"');
  });

  it('a top-level key that does not exist', () => {
    const state = stateOf('{\n  "version": 1,\n  "alowTrust": false\n}');
    expect(state.status === 'unreadable' && state.problems[0]).toMatchObject({ line: 3, key: 'alowTrust' });
  });

  it('a wrong version, a wrong type, a duplicate key', () => {
    expect(stateOf('{"version":2}').status).toBe('unreadable');
    const typed = stateOf('{\n"version":1,\n"allowTrust":"no"\n}');
    expect(typed.status === 'unreadable' && typed.problems[0]?.line).toBe(3);
    expect(() => parsePolicyJson('{"version":1,\n"version":1}')).toThrow(/line 2.*appears twice/);
  });

  it('merges documents key by key, the higher location winning', () => {
    const a = parsePolicyJson('{"version":1,"allowTrust":false}');
    const b = parsePolicyJson('{"version":1,"allowTrust":true,"mode":"strict"}');
    const state = policyState(
      [
        { location: 'profile', status: 'read', value: a.value },
        { location: 'file', status: 'read', value: b.value },
      ],
      ['profile', 'file'],
    );
    expect(state.status === 'active' && state.policy).toMatchObject({ allowTrust: false, mode: 'strict' });
    expect(state.status === 'active' && state.from).toEqual({ allowTrust: 'profile', mode: 'file' });
  });
});

describe('decide() takes the policy as facts, and only ever gets stricter', () => {
  it('a blocked server is denied with the rule', () => {
    const decision = decide(call(), { ...facts({ definition: tool(READ_ONLY), trusted: true }), organisation: { blocked: { key: 'deniedServers', message: 'Blocked by your organisation\'s policy (deniedServers: {"npm":"x"}).' } } }, NOW);
    expect(decision.verdict).toBe('deny');
    expect(decision.decidedBy.kind).toBe('organisation');
    expect(decision.reasons[0]).toContain('deniedServers');
  });

  it('allowTrust false: a trusted server is read as untrusted', () => {
    const base = facts({ definition: tool(READ_ONLY), trusted: true });
    expect(decide(call(), base, NOW).verdict).toBe('allow');
    const decision = decide(call(), { ...base, organisation: { trustForbidden: true } }, NOW);
    expect(decision.verdict).toBe('ask');
    expect(decision.reasons).toContain(REASONS.organisationTrust);
  });

  it('mode strict: everything asks', () => {
    const base = facts({ definition: tool(READ_ONLY), trusted: true });
    expect(decide(call(), { ...base, organisation: { strict: true } }, NOW).verdict).toBe('ask');
  });

  it('allowAlwaysForDestructive false: an "always allow" rule for a destructive tool does not count', () => {
    const definition = tool(DESTRUCTIVE);
    const base = facts({ definition, rules: [ruleFor(definition, 'allow')] });
    expect(decide(call(), base, NOW).verdict).toBe('allow');
    const decision = decide(call(), { ...base, organisation: { alwaysForDestructiveForbidden: true } }, NOW);
    expect(decision.verdict).toBe('ask');
    expect(decision.reasons[0]).toBe(REASONS.organisationAlways);
    expect(decision.flags.alwaysForbiddenByOrganisation).toBe(true);
  });

  it('a malformed organisation fact fails closed', () => {
    expect(decide(call(), { ...facts({ definition: tool(READ_ONLY), trusted: true }), organisation: 'x' as never }, NOW).verdict).toBe('deny');
  });
});

import { describe, expect, it } from 'vitest';
import { defaultServerRequestSettings, defaultSandboxProfile, type ServerRequestSettings } from '../../../shared/domain';
import {
  decideServerRequest,
  rootsFromGrants,
  type ElicitationAsk,
  type SamplingAsk,
  type ServerRequestFacts,
} from '../../../electron/core/policy/decide-server-request';

const sampling = (over: Partial<SamplingAsk> = {}): SamplingAsk => ({ kind: 'sampling', includeContext: 'none', maxTokens: 100, usesTools: false, taskAugmented: false, ...over });
const form = (over: Partial<ElicitationAsk> = {}): ElicitationAsk => ({ kind: 'elicitation', mode: 'form', secretFields: [], taskAugmented: false, ...over });
const url = (over: Partial<ElicitationAsk> = {}): ElicitationAsk => ({ kind: 'elicitation', mode: 'url', secretFields: [], taskAugmented: false, ...over });

function settings(change: (s: ServerRequestSettings) => void = () => {}): ServerRequestSettings {
  const s = defaultServerRequestSettings();
  change(s);
  return s;
}

function facts(over: Partial<ServerRequestFacts> = {}): ServerRequestFacts {
  return { known: true, blocked: false, settings: settings(), sessionGrant: false, recentCount: 0, sampler: 'client', relay: false, canAsk: true, mode: 'default', ...over };
}

type Row = [string, Parameters<typeof decideServerRequest>[0], Partial<ServerRequestFacts>, 'allow' | 'ask' | 'deny', string];

describe('decideServerRequest(): sampling', () => {
  const rows: Row[] = [
    ['unknown server', sampling(), { known: false }, 'deny', 'unknown-server'],
    ['blocked server, even with an always rule', sampling(), { blocked: true, settings: settings((s) => (s.sampling.rule = 'always')) }, 'deny', 'blocked'],
    ['no rule, a person can be asked → ask (request and answer reviewed)', sampling(), {}, 'ask', 'ask'],
    ['no approver → refused', sampling(), { canAsk: false }, 'deny', 'no-approver'],
    ['nobody to answer (no client model, no Airlock model) → refused', sampling(), { sampler: 'none' }, 'deny', 'no-model'],
    ['nobody to answer, even with an always rule', sampling(), { sampler: 'none', settings: settings((s) => (s.sampling.rule = 'always')) }, 'deny', 'no-model'],
    ['Airlock’s own model answers → ask', sampling(), { sampler: 'model' }, 'ask', 'ask'],
    ['rule never', sampling(), { settings: settings((s) => (s.sampling.rule = 'never')) }, 'deny', 'rule'],
    ['rule always → allow without asking', sampling(), { canAsk: false, settings: settings((s) => (s.sampling.rule = 'always')) }, 'allow', 'rule'],
    ['session grant → allow', sampling(), { sessionGrant: true }, 'allow', 'session-grant'],
    ['includeContext allServers → refused unless allowed', sampling({ includeContext: 'allServers' }), {}, 'deny', 'context'],
    ['includeContext thisServer → refused unless allowed', sampling({ includeContext: 'thisServer' }), { settings: settings((s) => (s.sampling.rule = 'always')) }, 'deny', 'context'],
    ['includeContext allServers, allowed → ask', sampling({ includeContext: 'allServers' }), { settings: settings((s) => (s.sampling.allowContext = true)) }, 'ask', 'ask'],
    ['over the token cap', sampling({ maxTokens: 5000 }), {}, 'deny', 'token-cap'],
    ['over the token cap, always rule', sampling({ maxTokens: 5000 }), { settings: settings((s) => (s.sampling.rule = 'always')) }, 'deny', 'token-cap'],
    ['a negative maxTokens', sampling({ maxTokens: -1 }), {}, 'deny', 'token-cap'],
    ['at the rate cap', sampling(), { recentCount: 10 }, 'deny', 'rate-cap'],
    ['at the rate cap, always rule', sampling(), { recentCount: 10, settings: settings((s) => (s.sampling.rule = 'always')) }, 'deny', 'rate-cap'],
    ['just under the rate cap', sampling(), { recentCount: 9 }, 'ask', 'ask'],
    ['offers the model tools (not declared)', sampling({ usesTools: true }), { settings: settings((s) => (s.sampling.rule = 'always')) }, 'deny', 'unsupported'],
    ['asks to run as a task (not declared)', sampling({ taskAugmented: true }), {}, 'deny', 'unsupported'],
    ['strict mode asks even with an always rule', sampling(), { mode: 'strict', settings: settings((s) => (s.sampling.rule = 'always')) }, 'ask', 'strict-mode'],
    ['strict mode with nobody to ask → refused', sampling(), { mode: 'strict', canAsk: false, sessionGrant: true }, 'deny', 'no-approver'],
    ['an unknown mode fails closed', sampling(), { mode: 'lenient' as never }, 'deny', 'policy-error'],
  ];
  it.each(rows)('%s', (_name, ask, over, verdict, decidedBy) => {
    const decision = decideServerRequest(ask, facts(over));
    expect(decision.verdict).toBe(verdict);
    expect(decision.decidedBy).toBe(decidedBy);
    expect(decision.reasons.length).toBeGreaterThan(0);
  });

  it('reviews the model’s answer only when the request itself was asked', () => {
    expect(decideServerRequest(sampling(), facts()).reviewResponse).toBe(true);
    expect(decideServerRequest(sampling(), facts({ sessionGrant: true })).reviewResponse).toBe(false);
    expect(decideServerRequest(sampling(), facts({ mode: 'strict', sessionGrant: true })).reviewResponse).toBe(true);
  });

  it('never throws: garbage facts are a policy error', () => {
    expect(decideServerRequest(sampling(), null as never).verdict).toBe('deny');
    expect(decideServerRequest(sampling(), { ...facts(), settings: null } as never).decidedBy).toBe('policy-error');
  });
});

describe('decideServerRequest(): elicitation', () => {
  const relayed = settings((s) => (s.elicitation.answer = 'client'));
  const rows: Row[] = [
    ['blocked server', form(), { blocked: true }, 'deny', 'blocked'],
    ['a form, a person can be asked → asked in Airlock', form(), {}, 'ask', 'ask'],
    ['a form, nobody to ask → refused', form(), { canAsk: false }, 'deny', 'no-approver'],
    ['a form asking for a password → asked, flagged', form({ secretFields: ['password'] }), {}, 'ask', 'ask'],
    ['never → declined without asking', form(), { settings: settings((s) => (s.elicitation.answer = 'never')) }, 'deny', 'rule'],
    ['relay chosen and the client can show it → relayed', form(), { relay: true, settings: relayed }, 'allow', 'relay'],
    ['relay chosen, client cannot show it → asked in Airlock', form(), { relay: false, settings: relayed }, 'ask', 'ask'],
    ['relay possible but not chosen → asked in Airlock', form(), { relay: true }, 'ask', 'ask'],
    ['a safe URL → asked', url(), {}, 'ask', 'ask'],
    ['a Punycode URL → asked, flagged', url({ punycode: true }), {}, 'ask', 'ask'],
    ['an unsafe URL → refused before anyone sees it', url({ urlProblem: 'it is not https' }), { relay: true, settings: relayed }, 'deny', 'unsafe-url'],
    ['a flood → rate cap', form(), { recentCount: 10 }, 'deny', 'rate-cap'],
    ['a task-augmented elicitation (not declared)', form({ taskAugmented: true }), {}, 'deny', 'unsupported'],
  ];
  it.each(rows)('%s', (_name, ask, over, verdict, decidedBy) => {
    const decision = decideServerRequest(ask, facts(over));
    expect(decision.verdict).toBe(verdict);
    expect(decision.decidedBy).toBe(decidedBy);
  });

  it('flags a secret-looking form field and says why, in Airlock’s words', () => {
    const decision = decideServerRequest(form({ secretFields: ['api_key'] }), facts());
    expect(decision.flags.secretFields).toEqual(['api_key']);
    expect(decision.reasons.join(' ')).toMatch(/looks secret \(api_key\)/);
  });

  it('routes: Airlock’s window, or the client only when the person chose it', () => {
    expect(decideServerRequest(form(), facts()).route).toBe('airlock');
    expect(decideServerRequest(form(), facts({ relay: true, settings: relayed })).route).toBe('client');
  });
});

describe('decideServerRequest(): roots', () => {
  it.each([
    ['a known server', {}, 'allow', 'grants'],
    ['a blocked server', { blocked: true }, 'deny', 'blocked'],
    ['an unknown server', { known: false }, 'deny', 'unknown-server'],
  ] as const)('%s', (_name, over, verdict, decidedBy) => {
    const decision = decideServerRequest({ kind: 'roots' }, facts(over));
    expect(decision.verdict).toBe(verdict);
    expect(decision.decidedBy).toBe(decidedBy);
  });
});

describe('rootsFromGrants(): never wider than the grants', () => {
  it.each([
    ['no grants → no roots', { read: [], write: [] }, []],
    ['one write grant', { read: [], write: ['/home/me/notes'] }, ['file:///home/me/notes']],
    ['read and write, a folder in both listed once', { read: ['/srv/data', '/home/me/notes'], write: ['/home/me/notes'] }, ['file:///home/me/notes', 'file:///srv/data']],
    ['a relative path is not a root', { read: ['relative/path'], write: [] }, []],
    ['spaces are escaped', { read: ['/home/me/My Notes'], write: [] }, ['file:///home/me/My%20Notes']],
  ] as const)('%s', (_name, filesystem, uris) => {
    const profile = { ...defaultSandboxProfile(), filesystem: { ...filesystem, read: [...filesystem.read], write: [...filesystem.write], persistentData: true } };
    const roots = rootsFromGrants(profile);
    expect(roots.map((root) => root.uri)).toEqual(uris);
    // The persistent data folder and anything else the server has are never roots.
    expect(roots.every((root) => profile.filesystem.read.concat(profile.filesystem.write).some((path) => root.uri === `file://${encodeURI(path)}`))).toBe(true);
  });

  it('names each root with its access', () => {
    expect(rootsFromGrants({ filesystem: { read: ['/a/b'], write: ['/c'], persistentData: false } })).toEqual([
      { uri: 'file:///c', name: 'c (read and write)' },
      { uri: 'file:///a/b', name: 'b (read only)' },
    ]);
  });
});

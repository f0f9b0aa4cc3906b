// The mutation exercise (TESTING.md, "Prove the choke points by breaking
// them"; issue 10): one deliberate bug at a time in the places every promise
// meets, and the tests that must catch it. `find` must occur exactly once in
// `file`; `tests` are the files run against the mutant (the machine is
// shared: only the relevant ones). The first seven are the bugs an earlier
// pass found surviving every test.
const PIPELINE = 'electron/core/calls/call-pipeline.ts';
const TOKENS = 'electron/core/approvals/approval-tokens.ts';
const REGISTRY = 'electron/core/approvals/confirmation-registry.ts';
const AUDIT = 'electron/core/audit/audit-log.ts';
const LAUNCHER = 'electron/core/sandbox/sandbox-launcher.ts';
const HTTP = 'electron/core/gateway/http-gateway.ts';
const FACADE = 'electron/core/gateway/gateway-server.ts';
const REQUEST_CHECK = 'electron/core/gateway/request-params.ts';

const CHOKE = 'test/core/calls/choke-point.test.ts';
const PROPERTY = 'test/core/approvals/call-flow.property.test.ts';
const DURABILITY = 'test/core/calls/durability.test.ts';
const REGISTRY_TESTS = 'test/core/approvals/confirmation-registry.test.ts';

export const MUTATIONS = [
  {
    id: 1,
    title: 'the pipeline ignores a token that consume() refuses',
    file: PIPELINE,
    find: "      if (!consumed.ok) {\n        return { answer: { how: 'refused-token', confirmationId: outcome.id }, message: `Airlock refused the approval: ${consumed.message}` };\n      }\n",
    replace: '',
    tests: [CHOKE, PROPERTY],
  },
  {
    id: 2,
    title: 'the call is sent 200 ms before its decision is written',
    file: PIPELINE,
    find: '      entry = await this.deps.audit.appendDecision(',
    replace:
      '      const writeLater = (input: any, options: any) => new Promise((r) => setTimeout(r, 200)).then(() => this.deps.audit.appendDecision(input, options));\n      entry = { seq: 0 } as any;\n      void writeLater(',
    tests: [CHOKE, PROPERTY, DURABILITY],
  },
  {
    id: 3,
    title: 'the audit records the requested arguments instead of those sent',
    file: PIPELINE,
    find: '          arguments: args,\n',
    replace: '          arguments: request.arguments,\n',
    tests: [CHOKE, PROPERTY],
  },
  {
    id: 4,
    title: 'the non-idempotent retry guard removed',
    file: PIPELINE,
    find: "if (decision.retry !== 'once-after-reconnect' || !(error instanceof ToolCallError)",
    replace: 'if (!(error instanceof ToolCallError)',
    tests: [CHOKE],
  },
  {
    id: 5,
    title: "a trusted idempotent call's single retry removed",
    file: PIPELINE,
    find: '      await this.deps.ensureReady(request.server);\n      attempts.retried = true;\n      return send();\n',
    replace: '      throw error;\n',
    tests: [CHOKE],
  },
  {
    id: 6,
    title: 'the HTTP gateway listens on every interface',
    file: HTTP,
    find: 'httpServer.listen({ port: options.port, host, exclusive: true }',
    replace: 'httpServer.listen({ port: options.port, exclusive: true }',
    tests: ['test/core/gateway/http-gateway-flood.test.ts', 'test/core/gateway/http-gateway.test.ts'],
  },
  {
    id: 7,
    title: "the audit's fsync removed",
    file: AUDIT,
    find: '      await Promise.all(fds.map((fd) => this.#fs.fsync(fd)));\n',
    replace: '',
    tests: [DURABILITY, CHOKE],
  },
  {
    id: 8,
    title: 'a decision a person answered is no longer flushed before the call is sent',
    file: PIPELINE,
    find: "strict || personAnswered ? 'flushed' : 'written'",
    replace: "strict ? 'flushed' : 'written'",
    tests: [DURABILITY],
  },
  {
    id: 9,
    title: 'fails open: a decision that cannot be written is sent anyway',
    file: PIPELINE,
    find: "      throw new AirlockError('unavailable', `Airlock did not send this call, because it could not record the decision first. ${why}`);\n",
    replace: '      void why;\n      entry = { seq: 0 } as any;\n',
    tests: [DURABILITY],
  },
  {
    id: 10,
    title: 'a tool that changed after its decision was written is sent anyway',
    file: PIPELINE,
    find: 'if (!settled || this.deps.lookupTool(request.server, request.tool)?.fingerprint !== decision.fingerprint) {',
    replace: 'if (false) {',
    tests: [CHOKE],
  },
  {
    id: 11,
    title: 'a denied call (a person or a rule said no) is sent',
    file: PIPELINE,
    find: "    if (final === 'deny') {\n",
    replace: "    if (final === 'deny' && round.nobodyToAsk) {\n",
    tests: [PROPERTY, CHOKE],
  },
  {
    id: 12,
    title: "every caller's call counts as the person's own (no confirmation for gateway clients)",
    file: PIPELINE,
    find: "  if (caller.kind === 'user') return 'console';",
    replace: "  if (caller.kind !== 'cli') return 'console';",
    tests: [PROPERTY, CHOKE],
  },
  {
    id: 13,
    title: 'an approval token is not burnt when used (replayable)',
    file: TOKENS,
    find: '    this.#tokens.delete(token);\n',
    replace: '',
    tests: [REGISTRY_TESTS, PROPERTY],
  },
  {
    id: 14,
    title: "an approval token's lifetime is ignored",
    file: TOKENS,
    find: 'if (this.#clock.monotonic() >= record.dueAt) {',
    replace: 'if (false) {',
    tests: [REGISTRY_TESTS, PROPERTY, CHOKE],
  },
  {
    id: 15,
    title: 'an approval token is accepted for other arguments',
    file: TOKENS,
    find: 'if (digest !== record.digest) {',
    replace: 'if (false) {',
    tests: [REGISTRY_TESTS, PROPERTY],
  },
  {
    id: 16,
    title: 'an approval token is accepted for a changed tool definition',
    file: TOKENS,
    find: 'fingerprint !== undefined && fingerprint !== record.fingerprint) {',
    replace: 'fingerprint !== undefined && fingerprint !== record.fingerprint && false) {',
    tests: [REGISTRY_TESTS],
  },
  {
    id: 17,
    title: 'the registry accepts an answer after the deadline',
    file: REGISTRY,
    find: 'if (this.#clock.monotonic() >= pending.due) {',
    replace: 'if (false) {',
    tests: [REGISTRY_TESTS],
  },
  {
    id: 18,
    title: "the token binds the caller's arguments, not the person's edited ones (an edited approval is lost)",
    file: REGISTRY,
    find: 'const token = this.#tokens.issue(request.server, request.tool, args, id, request.fingerprint);',
    replace: 'const token = this.#tokens.issue(request.server, request.tool, request.arguments, id, request.fingerprint);',
    tests: [CHOKE, PROPERTY],
  },
  {
    id: 19,
    title: "'always allow' on a destructive tool without the second confirmation",
    file: REGISTRY,
    find: 'request.alwaysNeedsSecondConfirmation && answer.confirmDestructiveAlways !== true',
    replace: 'request.alwaysNeedsSecondConfirmation && false',
    tests: [REGISTRY_TESTS],
  },
  {
    id: 20,
    title: "the audit resolves a 'flushed' append as soon as it is written",
    file: AUDIT,
    find: "          if (pending.durability === 'written') pending.resolve(written[i]!);",
    replace: '          if (true) pending.resolve(written[i]!);',
    tests: [DURABILITY, CHOKE],
  },
  {
    id: 21,
    title: 'the audit chain does not link entries (prevHash)',
    file: AUDIT,
    find: 'prevHash: tail.hash, ...body',
    replace: 'prevHash: GENESIS_HASH, ...body',
    tests: ['test/core/audit/audit-log.test.ts'],
  },
  {
    id: 22,
    title: "the sandbox no longer hides Airlock's data folders",
    file: LAUNCHER,
    find: 'const dataFolders = [...new Set([paths.airlockDataDir, ...registeredDataFolders(dataFolderRegistry)])];',
    replace: 'const dataFolders: string[] = [];',
    tests: ['test/core/sandbox/escape.test.ts'],
  },
  {
    id: 23,
    title: 'the sandbox keeps the capabilities the library adds for a root caller',
    file: LAUNCHER,
    find: 'const bwrapOptions = [...withoutCapabilityAdds(granted), ...trusted.plan.mounts];',
    replace: 'const bwrapOptions = [...granted, ...trusted.plan.mounts];',
    tests: ['test/core/sandbox/privilege.test.ts'],
  },
  {
    id: 24,
    title: "a running server's watcher takes another launch's placeholders for planted files",
    file: LAUNCHER,
    find: '          new Map(trusted.plan.baseline),\n          airlockOwn,',
    replace: '          new Map(trusted.plan.baseline),\n          new Map(trusted.plan.placeholders.map((p) => [p.path, p.ino])),',
    tests: ['test/core/sandbox/trusted-files.test.ts'],
  },
  {
    id: 25,
    title: "the HTTP gateway's token check removed",
    file: HTTP,
    find: '    if (!authorized(req.headers.authorization)) {',
    replace: '    if (false) {',
    tests: ['test/core/gateway/http-gateway.test.ts'],
  },
  {
    id: 26,
    title: "the HTTP gateway's Host check removed (DNS rebinding)",
    file: HTTP,
    find: 'if (!hostHeader || !allowedHosts.has(hostHeader)) return refuse(',
    replace: 'if (false) return refuse(',
    tests: ['test/core/gateway/http-gateway.test.ts'],
  },
  {
    id: 27,
    title: "a gateway session offers and calls servers it was not started for",
    file: FACADE,
    find: 'Promise.resolve(core.listTools(servers))',
    replace: 'Promise.resolve(core.listTools(undefined))',
    tests: ['test/core/gateway/gateway-server.test.ts'],
  },
  {
    id: 28,
    title: 'a remembered decision is reused after the rules changed',
    file: PIPELINE,
    find: '      this.decided.clear();\n',
    replace: '',
    tests: ['test/core/calls/decision-reuse.test.ts', CHOKE],
  },
  {
    id: 29,
    title: 'a remembered decision is reused while a session grant is held',
    file: PIPELINE,
    find: 'const reusable = codeChange === null && this.deps.sessionGrants.empty;',
    replace: 'const reusable = codeChange === null;',
    tests: ['test/core/calls/decision-reuse.test.ts', PROPERTY],
  },
  {
    id: 30,
    title: 'a reader of the log does not wait for outcomes left for after the turn',
    file: AUDIT,
    find: '    // A reader of this process sees the outcomes of the calls that returned before it asked.\n    await this.#settleLater();\n',
    replace: '',
    tests: ['test/core/audit/durability.test.ts', CHOKE],
  },
  {
    id: 31,
    title: "the gateway's tools/call handler takes params its check never parsed",
    file: REQUEST_CHECK,
    find: '(value) => typeof value === \'object\' && value !== null && parsedToolCalls.has(value),',
    replace: '(value) => typeof value === \'object\' && value !== null,',
    tests: ['test/core/gateway/request-params.test.ts', 'test/reliability/gateway-fuzz.test.ts'],
  },
  {
    id: 32,
    title: "the gateway's check of a request is skipped (the raw message goes to the handlers)",
    file: REQUEST_CHECK,
    find: '    if (checked.problem === undefined) return deliver(checked.message, extra);',
    replace: '    if (checked.problem === undefined || true) return deliver(message, extra);',
    tests: ['test/reliability/gateway-fuzz.test.ts', 'test/core/gateway/gateway-server.test.ts'],
  },
];

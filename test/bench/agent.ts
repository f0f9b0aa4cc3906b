/**
 * What the built-in agent adds to a streamed turn: the same scripted model
 * server (Anthropic's wire format, real HTTP on loopback) called directly
 * with the same library (`streamText` of the AI SDK, the same tools offered),
 * against a turn through Airlock (the conversation saved, tools listed from
 * a sandboxed server, every delta turned into a chat event). Time to first
 * token and total, medians of interleaved runs, as ratios. Goal ≤ 1.05.
 *
 * Two pacings: "paced" streams like a fast hosted model (first token after
 * 150 ms, 40 pieces 10 ms apart) — the goal applies there; "unpaced" streams
 * as fast as loopback allows, so the ratio is dominated by Airlock's fixed
 * cost and is reported with that cost in milliseconds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createAnthropic } from '@ai-sdk/anthropic';
import { jsonSchema, streamText, tool, type ToolSet } from 'ai';
import type { ChatUpdate } from '../../shared/chat';
import { defaultSandboxProfile } from '../../shared/domain';
import { buildToolset } from '../../electron/core/agent/model-tools';
import { AirlockHost } from '../../electron/core/host';
import { ModelServer, type ScriptedReply } from '../fixtures/model-server/model-server';

const ROOT = resolve(import.meta.dirname, '../..');
const FILESYSTEM = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const RUNS = Number(process.env.BENCH_TURNS ?? 15);
const KEY = 'sk-bench';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number) => Math.round(value * 1000) / 1000;
const figure = (name: string, value: number, baseline: number, extra: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ name, value: round(value), baseline: round(baseline), ratio: round(value / baseline), ...extra }));

const PACINGS: Array<{ name: string; reply: ScriptedReply; goal?: number }> = [
  { name: 'paced', reply: { text: Array.from({ length: 40 }, (_, n) => `token${n} `), firstByteDelayMs: 150, chunkDelayMs: 10 }, goal: 1.05 },
  { name: 'unpaced', reply: { text: Array.from({ length: 40 }, (_, n) => `token${n} `) } },
];

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'airlock-bench-agent-'));
  const work = join(root, 'work');
  const host = new AirlockHost({ dataDir: join(root, 'data'), version: 'bench', homeDir: join(root, 'home'), hooks: { emit: (event, payload) => emitted(event, payload) } });
  const listeners = new Set<(update: ChatUpdate) => void>();
  function emitted(event: string, payload: unknown): void {
    if (event === 'chat.didUpdate') for (const listener of listeners) listener(payload as ChatUpdate);
  }
  const model = await ModelServer.start({ apiKey: KEY });
  try {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(work, { recursive: true });
    mkdirSync(join(root, 'home'), { recursive: true });
    const disclosure = await host.install.prepare({ kind: 'local', argv: [process.execPath, FILESYSTEM, work] });
    await host.install.probe(disclosure.draftId);
    const { unsandboxed: _u, ...profile } = defaultSandboxProfile();
    await host.install.commit({ draftId: disclosure.draftId, name: 'files', profile: { ...profile, filesystem: { read: [work], write: [], persistentData: false } }, trusted: true, secrets: {}, enable: true });
    const provider = host.agent.addProvider({ kind: 'anthropic', label: 'Bench', baseUrl: model.baseUrl, apiKey: KEY });
    host.agent.setDefaultModel({ provider: provider.id, model: 'claude-sonnet-4-5' });

    // The direct baseline offers the same tools, built the same way.
    const specs = buildToolset(await hostTools(host), { servers: null, hiddenTools: [] }).specs;
    const tools: ToolSet = Object.fromEntries(specs.map((spec) => [spec.name, tool({ description: spec.description ?? '', inputSchema: jsonSchema(spec.inputSchema as Parameters<typeof jsonSchema>[0]) })]));
    const anthropic = createAnthropic({ apiKey: KEY, baseURL: model.baseUrl })('claude-sonnet-4-5');

    const direct = async (): Promise<{ first: number; total: number }> => {
      const start = performance.now();
      let first = 0;
      const result = streamText({ model: anthropic, system: 'bench', messages: [{ role: 'user', content: 'hi' }], tools, maxRetries: 0, maxOutputTokens: 8192, onError: () => {} });
      for await (const part of result.fullStream) if (part.type === 'text-delta' && !first) first = performance.now() - start;
      return { first, total: performance.now() - start };
    };
    const through = async (): Promise<{ first: number; total: number }> => {
      const id = host.agent.create().id;
      const start = performance.now();
      let first = 0;
      const ended = new Promise<void>((done) => {
        const listener = (update: ChatUpdate) => {
          if (update.conversationId !== id) return;
          if (update.event.type === 'delta' && !first) first = performance.now() - start;
          if (update.event.type === 'turn' && !update.event.running) {
            listeners.delete(listener);
            done();
          }
        };
        listeners.add(listener);
      });
      await host.agent.send(id, { text: 'hi' });
      await ended;
      const total = performance.now() - start;
      await host.agent.remove(id);
      return { first, total };
    };

    for (const pacing of PACINGS) {
      const samples = { direct: { first: [] as number[], total: [] as number[] }, through: { first: [] as number[], total: [] as number[] } };
      for (let run = 0; run < RUNS + 3; run += 1) {
        model.push(pacing.reply, pacing.reply);
        // Interleaved, alternating which goes first, so both see the same load.
        const order = run % 2 === 0 ? [direct, through] : [through, direct];
        const results = [];
        for (const measure of order) results.push(await measure());
        const [d, t] = run % 2 === 0 ? results : [results[1]!, results[0]!];
        if (run < 3) continue; // warm-up
        samples.direct.first.push(d!.first);
        samples.direct.total.push(d!.total);
        samples.through.first.push(t!.first);
        samples.through.total.push(t!.total);
      }
      const extra = (kind: 'first' | 'total') => ({
        unit: 'ms',
        runs: RUNS,
        overheadMs: round(median(samples.through[kind]) - median(samples.direct[kind])),
        ...(pacing.goal ? { goal: `≤ ${pacing.goal}` } : {}),
      });
      figure(`agent turn, time to first token (${pacing.name})`, median(samples.through.first), median(samples.direct.first), extra('first'));
      figure(`agent turn, total (${pacing.name})`, median(samples.through.total), median(samples.direct.total), extra('total'));
    }
  } finally {
    await model.close();
    await host.dispose();
    rmSync(root, { recursive: true, force: true });
  }
}

/** The tools the agent would be offered (through the host, as a turn gets them). */
async function hostTools(host: AirlockHost) {
  const id = host.agent.create().id;
  const view = await host.agent.tools(id);
  await host.agent.remove(id);
  const detail = await host.servers.detail('files');
  return view.servers.flatMap((server) =>
    server.tools.map((entry) => {
      const definition = detail.tools.find((candidate) => candidate.name === entry.name)!;
      return { server: server.name, definition: { name: definition.name, ...(definition.description ? { description: definition.description } : {}), inputSchema: definition.inputSchema }, serverTrusted: true, openWorld: false, readOnly: entry.readOnly };
    }),
  );
}

await main();

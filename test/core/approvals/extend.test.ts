/** The countdown pauses while a person engages: extend() moves the deadline forward, within bounds. */
import { describe, expect, it } from 'vitest';
import { defaultSandboxProfile, type ToolDefinition } from '../../../shared/domain';
import { ManualClock } from '../../../electron/core/approvals/clock';
import { ConfirmationRegistry } from '../../../electron/core/approvals/confirmation-registry';
import { decide, type ToolCall } from '../../../electron/core/policy/decide';
import { fingerprintTool } from '../../../electron/core/tools/fingerprint';

const TOOL: ToolDefinition = { name: 'write_file', inputSchema: { type: 'object' }, annotations: { destructiveHint: true } };
const call: ToolCall = { server: 'files', tool: 'write_file', arguments: { path: '/x' }, caller: { kind: 'client', name: 'Claude' } };

function setup() {
  const clock = new ManualClock();
  const registry = new ConfirmationRegistry({ clock, defaultTimeoutMs: 30_000, maxTimeoutMs: 120_000 });
  const profile = defaultSandboxProfile();
  const decision = decide(call, { tool: { definition: TOOL, fingerprint: fingerprintTool(TOOL) }, server: { trusted: false, profile, sandboxAvailable: true }, rules: [], sessionGrants: [], mode: 'default' }, clock.now());
  const opened = registry.open({ call, decision, definition: TOOL, profile, serverTrusted: false });
  return { clock, registry, opened };
}

describe('ConfirmationRegistry.extend', () => {
  it('moves the deadline forward; an answer after the old deadline is then accepted', async () => {
    const { clock, registry, opened } = setup();
    const start = clock.now();
    clock.advance(25_000);
    expect(registry.extend(opened.request.id, 60_000)).toBe(start + 85_000);
    expect(registry.get(opened.request.id)!.deadline).toBe(start + 85_000);
    clock.advance(20_000); // past the original 30 s
    expect(registry.answer(opened.request.id, { choice: 'deny', answeredBy: { shell: 'window' } }).ok).toBe(true);
    expect((await opened.outcome).kind).toBe('denied');
  });

  it('never shortens, never passes the maximum from opening, and refuses unknown or expired ids', async () => {
    const { clock, registry, opened } = setup();
    const start = clock.now();
    expect(registry.extend(opened.request.id, 1_000)).toBe(start + 30_000);
    expect(registry.extend(opened.request.id, 10 * 60_000)).toBe(start + 120_000);
    expect(registry.extend('never-issued', 60_000)).toBeUndefined();
    expect(registry.extend(42, 60_000)).toBeUndefined();
    clock.advance(120_000);
    expect((await opened.outcome).kind).toBe('expired');
    expect(registry.extend(opened.request.id, 60_000)).toBeUndefined();
  });
});

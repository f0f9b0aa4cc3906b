/** Adds a local command to a real host through the real install flow (prepare → probe → commit), as the install screens do. */
import { defaultSandboxProfile, type SandboxProfile } from '../../shared/domain';
import type { AirlockHost } from '../../electron/core/host';

export interface AddServerOptions {
  profile?: Partial<SandboxProfile>;
  trusted?: boolean;
  /** Inspect in the locked sandbox first (default), so the tools seen become the approved ones. */
  probe?: boolean;
  enable?: boolean;
  /** Secret values to save with it (their names must be in `profile.secrets`). */
  secrets?: Record<string, string>;
}

export async function addLocalServer(host: AirlockHost, name: string, argv: string[], options: AddServerOptions = {}): Promise<void> {
  const disclosure = await host.install.prepare({ kind: 'local', argv });
  const base = defaultSandboxProfile();
  const profile = { ...base, ...options.profile, filesystem: { ...base.filesystem, ...options.profile?.filesystem } };
  const { unsandboxed: _ignored, ...editable } = profile;
  // Inspected with the grants it is about to get, as the CLI and the screens do.
  if (options.probe !== false) await host.install.probe(disclosure.draftId, {}, editable);
  await host.install.commit({ draftId: disclosure.draftId, name, profile: editable, trusted: options.trusted ?? false, secrets: options.secrets ?? {}, enable: options.enable ?? true });
}

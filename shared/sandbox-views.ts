/**
 * What the sandbox guarantees, and the plan of one server's launch, as the
 * shells show them: the server's Permissions page and the install
 * disclosure (in plain words), `airlock show NAME --sandbox-plan` (all of
 * it). The core's platform backends produce these (electron/core/sandbox/
 * platform/); no Node, Electron or DOM imports.
 */
import { z } from 'zod';

/** The platforms Airlock has a sandbox for. */
export const SandboxPlatformSchema = z.enum(['linux', 'darwin', 'win32']);
export type SandboxPlatformName = z.infer<typeof SandboxPlatformSchema>;

/** One row of what a platform's sandbox guarantees: `enforced`, `weaker` (and how), or `not enforced` (and why). */
export const GuaranteeViewSchema = z.object({
  /** The row's id (`home-hidden`, `credentials-denied`, …). */
  row: z.string(),
  /** "Home folder hidden". */
  label: z.string(),
  state: z.enum(['enforced', 'weaker', 'not enforced']),
  /** One or two sentences: how it holds, how it is weaker, or why it does not hold. */
  how: z.string(),
  /** The row matters only to a server with this in its profile (`write-grants`: the files protected inside its write grants). */
  onlyWith: z.enum(['write-grants']).optional(),
});
export type GuaranteeView = z.infer<typeof GuaranteeViewSchema>;

export { guaranteesFor } from './plain';

/** This machine's sandbox, row by row, and where it holds less than Linux's. */
export const SandboxGuaranteesViewSchema = z.object({
  platform: z.string(),
  /** The mechanism ("Seatbelt (sandbox-exec, through sandbox-runtime)"); absent where Airlock has no sandbox. */
  mechanism: z.string().optional(),
  /** Whether it can run now (the capability check). */
  supported: z.boolean(),
  guarantees: z.array(GuaranteeViewSchema),
  /** The rows weaker than on Linux (empty on Linux). */
  weakerThanLinux: z.array(GuaranteeViewSchema),
  /** Not yet verified on a real machine by Airlock's own tests (macOS, Windows). */
  unverified: z.boolean(),
});
export type SandboxGuaranteesView = z.infer<typeof SandboxGuaranteesViewSchema>;

/** The plan of one server's launch on one platform: rules, network, limits, the exact launch. */
export const SandboxPlanViewSchema = z.object({
  server: z.string(),
  platform: SandboxPlatformSchema,
  /** The mechanism ("bubblewrap + seccomp (through sandbox-runtime)", …). */
  backend: z.string(),
  guarantees: z.array(GuaranteeViewSchema),
  files: z.object({
    readDenied: z.array(z.string()),
    readAllowed: z.array(z.string()),
    writeAllowed: z.array(z.string()),
    writeDenied: z.array(z.string()),
  }),
  network: z.object({ endpoint: z.string().optional(), allowedHosts: z.array(z.string()), questions: z.boolean() }),
  limits: z.array(z.object({ kind: z.enum(['processes', 'memoryBytes', 'cpuSeconds', 'openFiles']), value: z.number(), applied: z.boolean() })),
  /** The argv as spawned (no shell in front), with secrets and the proxy's credential shown as placeholders. */
  launch: z.object({ command: z.string(), args: z.array(z.string()), env: z.record(z.string(), z.string()) }),
  /** The complete Seatbelt profile (macOS). */
  profileText: z.string().optional(),
  notes: z.array(z.string()),
  /** What of the launch is made only when it starts (its proxy's port; Linux: bubblewrap's mounts), in words; shown as «…» placeholders above. */
  atStart: z.array(z.string()).optional(),
  /** Computed on another platform than the one it is for (paths are this machine's). */
  foreign: z.boolean(),
});
export type SandboxPlanView = z.infer<typeof SandboxPlanViewSchema>;

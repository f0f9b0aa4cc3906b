import type {
  Implementation,
  Prompt,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { SandboxProfile, ServerSpec, ToolDefinition, ToolFingerprint } from '../../../shared/domain';
import type { LaunchContext, SandboxLauncher } from '../sandbox/launcher';
import { fingerprintTool } from '../tools/fingerprint';
import { LogRing, type LogLine } from './log-ring';
import type { ConnectionOptions, ServerConnection, ServerRequestHandlers } from './server-connection';
import type { TruncationReason } from './paging';
import { messageOf } from '../errors';
import { loadMcpTypes } from '../mcp-types';
import { checkResourceSize } from '../catalog/content-checks';
import { readScreen, screensOf, type ReadScreen } from '../screens/screen-decisions';

/** A listed item with whether Airlock stopped reading early. */
export interface ProbedList<T> {
  items: T[];
  truncated: boolean;
  reason?: TruncationReason;
}

/**
 * What a probe learnt about a server: plain data for install-time
 * disclosure. Everything here except `sandboxed` and the fingerprints is
 * the server's own claim.
 */
export interface ProbeResult {
  serverInfo?: Implementation;
  protocolVersion?: string;
  capabilities: ServerCapabilities;
  instructions?: string;
  tools: ProbedList<{ definition: ToolDefinition; fingerprint: ToolFingerprint }> & { duplicateNames: string[] };
  prompts?: ProbedList<Prompt>;
  resources?: ProbedList<Resource>;
  resourceTemplates?: ProbedList<ResourceTemplate>;
  /**
   * The screens (MCP Apps) its tools name, each as the server gave it — read
   * at the probe so the disclosure shows what each asks for and the commit
   * pins what the person saw — or why it could not be read.
   */
  screens?: ProbedScreen[];
  /** Whether the probe ran inside the OS sandbox. */
  sandboxed: boolean;
  /** The server's stderr and Airlock's notes during the probe. */
  log: LogLine[];
}

/** A screen read at the probe. */
export interface ProbedScreen {
  uri: string;
  tools: string[];
  read?: ReadScreen;
  problem?: string;
}

/** Most screens a probe reads (each is capped by the catalog's resource size too). */
export const PROBE_SCREENS_MAX = 16;

const refuse = async (): Promise<never> => {
  const { ErrorCode, McpError } = await loadMcpTypes();
  throw new McpError(ErrorCode.InvalidRequest, 'Airlock is inspecting this server in a locked sandbox and answers no requests now.');
};

/** During a probe every request from the server is refused (the same capabilities are declared). */
export const REFUSE_DURING_PROBE: ServerRequestHandlers = { sampling: refuse, elicitation: refuse, roots: refuse };

/** Bounds for a probe. */
export interface ProbeOptions {
  /** Everything — spawn, handshake, listings — must finish within this (default 30 s). */
  timeoutMs?: number;
  connection?: Omit<ConnectionOptions, 'log' | 'onToolsListChanged' | 'requests' | 'onNotice'>;
}

/** A probe failed; `log` holds what the server wrote meanwhile. */
export class ProbeError extends Error {
  constructor(
    message: string,
    readonly log: LogLine[],
    readonly timedOut: boolean,
  ) {
    super(message);
    this.name = 'ProbeError';
  }
}

/**
 * Runs a server once to see what it offers: launch (the caller passes the
 * strictest profile), handshake, tools (paging capped), prompts and
 * resources when it declares them, then stop — within one overall deadline.
 * The launch plan is always disposed and the process group always stopped.
 */
export async function probe(
  spec: ServerSpec,
  profile: SandboxProfile,
  launcher: SandboxLauncher,
  context: LaunchContext,
  options: ProbeOptions = {},
): Promise<ProbeResult> {
  const log = new LogRing();
  const timeoutMs = options.timeoutMs ?? 30_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new Error(`the probe did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  deadline.catch(() => undefined); // Observed so it is never unhandled; the race below reports it.
  // The launcher is inside the deadline too; a plan that arrives late is disposed unused.
  const planning = launcher.plan(spec, profile, context);
  let plan: Awaited<typeof planning>;
  try {
    plan = await Promise.race([planning, deadline]);
  } catch (error) {
    clearTimeout(timer);
    planning.then((late) => late.dispose()).catch(() => undefined); // A plan that arrives after the deadline is disposed if it can be; the deadline is what is reported.
    const message = messageOf(error);
    throw new ProbeError(`probing the server failed: ${message}`, log.snapshot(), timedOut);
  }
  // The probe declares the capabilities a running server will see (so it lists the same
  // tools), and answers none of the requests: nothing reaches a model, a person or a folder.
  // The MCP client is loaded here, for the first server inspected, not when Airlock starts.
  const { ServerConnection: Connection } = await import('./server-connection');
  const connection = new Connection(plan, { ...options.connection, log, requests: REFUSE_DURING_PROBE });
  const work = (async (): Promise<ProbeResult> => {
    await connection.connect();
    return readOffer(connection, plan.sandboxed);
  })();
  work.catch(() => undefined); // Observed so it is never unhandled; the race below reports it.
  try {
    const result = await Promise.race([work, deadline]);
    await connection.close();
    result.log = log.snapshot();
    return result;
  } catch (error) {
    await connection.close().catch(() => undefined); // Closing a connection that may never have opened; the probe's failure is thrown below.
    const message = messageOf(error);
    throw new ProbeError(`probing the server failed: ${message}`, log.snapshot(), timedOut);
  } finally {
    clearTimeout(timer);
    await plan.dispose().catch(() => undefined); // The plan's own clean-up; a launch folder left is swept at the next start.
  }
}

/** What a connected server offers, as the disclosure shows it: its tools (fingerprinted), prompts and resources, per its capabilities. */
export async function readOffer(
  connection: Pick<ServerConnection, 'capabilities' | 'serverInfo' | 'protocolVersion' | 'instructions' | 'listTools' | 'listPrompts' | 'listResources' | 'listResourceTemplates' | 'readResource'>,
  sandboxed: boolean,
): Promise<ProbeResult> {
  const capabilities = connection.capabilities ?? {};
  const tools = await connection.listTools();
  const result: ProbeResult = {
    serverInfo: connection.serverInfo,
    protocolVersion: connection.protocolVersion,
    capabilities,
    instructions: connection.instructions,
    tools: {
      items: tools.items.map((definition) => ({ definition, fingerprint: fingerprintTool(definition) })),
      truncated: tools.truncated,
      reason: tools.reason,
      duplicateNames: tools.duplicateNames,
    },
    sandboxed,
    log: [],
  };
  if (capabilities.prompts) result.prompts = await connection.listPrompts();
  if (capabilities.resources) {
    result.resources = await connection.listResources();
    result.resourceTemplates = await connection.listResourceTemplates();
  }
  const screens = [...screensOf(tools.items)];
  if (screens.length) {
    result.screens = [];
    for (const [uri, named] of screens.slice(0, PROBE_SCREENS_MAX)) {
      try {
        const read = await connection.readResource(uri);
        checkResourceSize('the server', uri, read);
        result.screens.push({ uri, tools: named, read: readScreen(uri, read) });
      } catch (error) {
        result.screens.push({ uri, tools: named, problem: messageOf(error) });
      }
    }
  }
  return result;
}

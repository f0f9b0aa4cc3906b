/**
 * Server supervision: the one place that starts and stops MCP server
 * processes, probes them, and keeps their current tools. The composition
 * root builds a {@link Supervisor} from a SandboxLauncher and a
 * {@link ServerCatalog}.
 */
export { systemClock, type Clock, type TimerHandle } from './clock';
export { Emitter, type Disposable, type Event } from './emitter';
export {
  backoffDelay,
  DEFAULT_LIFECYCLE_POLICY,
  transition,
  type LifecycleEffect,
  type LifecycleEvent,
  type LifecyclePolicy,
  type LifecycleSnapshot,
  type LifecycleTransition,
} from './lifecycle';
export { DEFAULT_LOG_RING_LIMITS, inertLine, inertText, LogRing, type LogLine, type LogRingLimits, type LogSource } from './log-ring';
export { DEFAULT_PAGING_LIMITS, type Listing, type PagingLimits, type TruncationReason } from './paging';
export { probe, ProbeError, type ProbedList, type ProbeOptions, type ProbeResult } from './probe';
export { isProcessGroupAlive, processGroupMembers } from './process-group';
export {
  AIRLOCK_CLIENT_INFO,
  ServerConnection,
  type CallOptions,
  type ConnectionOptions,
  type ToolListing,
} from './server-connection';
export {
  DEFAULT_SHUTDOWN_TIMINGS,
  DEFAULT_STDIO_LIMITS,
  ProcessStdioTransport,
  ServerFaultyError,
  type ProcessExit,
  type ShutdownTimings,
  type StdioLimits,
  type StdioStats,
} from './stdio-transport';
export {
  Supervisor,
  type ServerCatalog,
  type ServerStateChange,
  type ServerStatus,
  type ServerToolsChange,
  type SupervisedServer,
  type SupervisorOptions,
  type ToolCallOptions,
} from './supervisor';
export { ToolCallError, type ToolCallFailure } from './tool-call-error';
export { diffTools, indexTools, ToolIndex, type IndexedTool, type ServerTools, type ToolIndexView, type ToolsDiff } from './tool-index';

/**
 * The JSON-RPC errors Airlock answers a server or a client with, each a
 * named kind with its real code — never a bare number at the call site.
 * Codes: JSON-RPC 2.0's reserved range (-32700…-32600) and MCP's own
 * (-32002 resource not found), plus -1, which the MCP specification's
 * sampling flow names for "the user rejected the request" (client/sampling,
 * "Error handling"; outside the reserved range by design).
 *
 * Made only while serving a request, after `loadMcpTypes()` (see mcp-types.ts).
 */
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import { mcpTypes } from './mcp-types';

/** The person (or their standing rule) refused a server's request: MCP's user-rejected code. */
export const USER_REJECTED = -1;

/** A person, or what they decided, refused a server's sampling request (MCP: "User rejected sampling request", code -1). */
export function userRejected(message: string): McpError {
  const { McpError } = mcpTypes();
  return new McpError(USER_REJECTED, message);
}

/** The request asks for something Airlock did not offer, or is malformed: Invalid params (-32602). */
export function invalidParams(message: string): McpError {
  const { McpError, ErrorCode } = mcpTypes();
  return new McpError(ErrorCode.InvalidParams, message);
}

/** The request cannot be served now (a rate cap, a policy that refuses it): Invalid request (-32600). */
export function invalidRequest(message: string): McpError {
  const { McpError, ErrorCode } = mcpTypes();
  return new McpError(ErrorCode.InvalidRequest, message);
}

/** Something failed on Airlock's side while serving it (a model that could not answer): Internal error (-32603). */
export function internalError(message: string): McpError {
  const { McpError, ErrorCode } = mcpTypes();
  return new McpError(ErrorCode.InternalError, message);
}

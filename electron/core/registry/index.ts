/** The MCP Registry: the client, server.json, listing → install choices and plan, and the room the host composes. */
export * from './install-plan';
export * from './registry-client';
export * from './registry-room';
export * from './server-json';

/** Servers' screens (MCP Apps): where they load from, their pinning and their requests (see screen-room.ts). */
export * from './screen-frames';

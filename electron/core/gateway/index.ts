export type { GatewayCallRequest, GatewayCore, GatewayTool } from './gateway-core';
export { clientLabel, createGatewayServer, GATEWAY_SERVER_INFO, type GatewayServerOptions } from './gateway-server';
export {
  GATEWAY_TOKEN_FILE,
  generateGatewayToken,
  loadOrCreateGatewayToken,
  MIN_GATEWAY_TOKEN_LENGTH,
  rotateGatewayToken,
  tokensMatch,
} from './gateway-token';
export { GATEWAY_HTTP_PATH, startHttpGateway, type HttpGateway, type HttpGatewayOptions, type LoopbackHost } from './http-gateway';
export { serveStdio, type StdioGateway, type StdioGatewayOptions } from './stdio-gateway';
export {
  buildGatewayListing,
  gatewayToolName,
  parseGatewayToolName,
  TOOL_NAME_SEPARATOR,
  type GatewayListing,
  type ToolAddress,
} from './tool-names';

/** Requests *from* servers — sampling, elicitation, roots — decided like calls (issue 12). */
export * from './downstream-peers';
export * from './elicitation-form';
export * from './questions';
export * from './rate-window';
export * from './request-queue';
export * from './sampling-model';
export * from './server-request-pipeline';
export { answererOf, serverRequestChanges, ServerRequestsRoom, type ServerRequestsRoomDeps } from './server-requests-room';
export * from './views';

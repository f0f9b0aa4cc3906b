/** Server secrets, sealed at rest and never sent to the renderer (see secret-store.ts). */
export * from './secret-store';

/**
 * A module loaded at first use rather than at start: `load()` imports it
 * once (awaited where the work that needs it begins), `get()` hands it to
 * code that runs after — and throws `notLoaded()` when it runs before,
 * which is a fault in Airlock (each caller says how it fails closed).
 * The import stays a literal `import('…')` in the caller, so the build
 * still puts the module in a chunk of its own.
 */
export interface LazyModule<M> {
  load(): Promise<M>;
  get(): M;
}

export function lazyModule<M>(importer: () => Promise<M>, notLoaded: () => Error): LazyModule<M> {
  let loaded: M | undefined;
  return {
    load: async () => (loaded ??= await importer()),
    get: () => {
      if (!loaded) throw notLoaded();
      return loaded;
    },
  };
}

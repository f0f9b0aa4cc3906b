/** What servers offer besides tools: resources, templates, prompts, completion, logging (issue 12). */
export * from './catalog';
export * from './catalog-index';
export * from './content-checks';
export * from './views';

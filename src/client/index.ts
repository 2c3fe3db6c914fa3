export * from './kassa-client.js';
export type { components, paths, webhooks } from './openapi.js';

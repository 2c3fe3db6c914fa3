import { tmpdir } from 'node:os';
import { buildApp } from '../app.js';
import { loadConfig } from '../config/config.js';

/**
 * The OpenAPI description of the API (spec §9.3) exactly as `/openapi.json` serves it, built on a throwaway in-memory
 * database with the canonical public URL. `npm run openapi` writes it to openapi.json; a test keeps the two equal.
 */
export async function buildOpenApiDocument(): Promise<unknown> {
  const config = loadConfig({
    DATABASE_URL: 'sqlite::memory:',
    KASSA_PUBLIC_URL: 'https://localhost:8443',
    KASSA_DATA_DIR: tmpdir(),
    LOG_LEVEL: 'silent',
  });
  const kassa = await buildApp(config, {
    secrets: { tokenSecret: 'openapi-generation-only-openapi-generation', dataKey: 'openapi-generation-only-openapi' },
  });
  await kassa.app.ready();
  const document = kassa.app.swagger();
  await kassa.close();
  return document;
}

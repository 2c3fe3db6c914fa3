import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/server/openapi-document.js';

describe('openapi.json', () => {
  it('is what the API serves at /openapi.json (run `npm run openapi` after changing a route)', async () => {
    const committed = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
    expect(await buildOpenApiDocument()).toEqual(committed);
  });
});

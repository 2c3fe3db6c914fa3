import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { authenticationResponseSchema } from '../../../src/domain/threeds/authentication-response.schema.js';

const committedFile = new URL('../../../schemas/authentication-response.json', import.meta.url);

/** Every sub-schema that declares `properties` at the level of an object (not inside if/then fragments). */
function objectSchemas(schema: Record<string, unknown>, path = '#'): [string, Record<string, unknown>][] {
  const found: [string, Record<string, unknown>][] = [];
  if (schema.type === 'object') found.push([path, schema]);
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (schema.type === 'object' && properties) {
    for (const [name, sub] of Object.entries(properties))
      found.push(...objectSchemas(sub, `${path}/properties/${name}`));
  }
  return found;
}

describe('authentication-response JSON Schema', () => {
  it('the committed schemas/authentication-response.json is exactly the schema constant', () => {
    // Regenerate with: JSON.stringify(authenticationResponseSchema, null, 2) + '\n' into the file.
    expect(JSON.parse(readFileSync(committedFile, 'utf8'))).toEqual(authenticationResponseSchema);
  });

  it('is a valid draft 2020-12 schema with an $id ending in /schemas/authentication-response.json', () => {
    const ajv = new Ajv2020({ strict: false });
    expect(ajv.validateSchema(authenticationResponseSchema)).toBe(true);
    expect(authenticationResponseSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(authenticationResponseSchema.$id).toMatch(/\/schemas\/authentication-response\.json$/);
  });

  it('forbids additional properties on every object (spec §2.1 rule 2, §2.2, §2.3)', () => {
    const objects = objectSchemas(authenticationResponseSchema);
    expect(objects.map(([path]) => path)).toEqual([
      '#',
      '#/properties/acsRenderingType',
      '#/properties/challengeRequest',
    ]);
    for (const [, schema] of objects) expect(schema.additionalProperties).toBe(false);
  });

  it('requires every spec §2.1 property except acsDecConInd (spec §2.1 rule 3)', () => {
    const all = Object.keys(authenticationResponseSchema.properties);
    expect(all).toHaveLength(27);
    expect([...authenticationResponseSchema.required].sort()).toEqual(all.filter((p) => p !== 'acsDecConInd').sort());
  });

  it.each(['acsInterface', 'acsUiTemplate'])(
    'lists the empty string among the values of enumerated acsRenderingType.%s (spec §2.2)',
    (member) => {
      const members = authenticationResponseSchema.properties.acsRenderingType.properties as Record<
        string,
        { enum: string[] }
      >;
      expect(members[member]?.enum).toContain('');
    },
  );

  it.each([
    'authenticationType',
    'transStatus',
    'transStatusReason',
    'whiteListStatus',
    'whiteListStatusSource',
    'threeDSCompInd',
  ])('lists the empty string among the values of enumerated %s (spec §2.1 rule 3)', (name) => {
    const properties = authenticationResponseSchema.properties as Record<string, { enum?: string[] }>;
    expect(properties[name]?.enum).toContain('');
  });
});

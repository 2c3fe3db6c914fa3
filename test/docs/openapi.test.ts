import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/server/openapi-document.js';

describe('openapi.json', () => {
  it('is what the API serves at /openapi.json (run `npm run openapi` after changing a route)', async () => {
    const committed = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
    expect(await buildOpenApiDocument()).toEqual(committed);
  });
});

describe('openapi.json shapes (issue 11: typed routes)', () => {
  const doc = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));

  it('lists the merchant API under /api/v1 and /api/v2 with the same operations', () => {
    const under = (prefix: string) =>
      Object.keys(doc.paths)
        .filter((p) => p.startsWith(prefix))
        .map((p) => p.slice(prefix.length))
        .sort();
    expect(under('/api/v2')).toEqual(under('/api/v1'));
    expect(under('/api/v2')).toContain('/payments/{payId}/captures');
  });

  it('answers have real shapes and status codes: 201/202 payment details, 201 follow-up result, problem+json 4xx', () => {
    const create = doc.paths['/api/v2/payments'].post;
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '202', '4XX']));
    expect(JSON.stringify(create.responses['201'])).toContain('#/components/schemas/PaymentDetails');
    expect(JSON.stringify(create.requestBody)).toContain('#/components/schemas/CreatePaymentRequest');
    const capture = doc.paths['/api/v2/payments/{payId}/captures'].post;
    expect(JSON.stringify(capture.responses['201'])).toContain('#/components/schemas/FollowUpResponse');
    expect(doc.components.schemas.PaymentDetails.properties.paymentMethods.properties.card.properties.bin.type).toBe(
      'object',
    );
  });

  // The contract review: the token endpoint listed only 200 and inherited the API's security (a token to get a
  // token); the /schemas documents answered "Default Response" without content, behind credentials they never ask.
  it('the token endpoint needs no token, and documents its RFC 6749 errors; the /schemas documents are public', () => {
    const token = doc.paths['/authorization/oauth/token'].post;
    expect(token.security).toEqual([{ basic: [] }, {}]);
    expect(Object.keys(token.responses)).toEqual(['200', '400', '401', '413', '429', '500', '503']);
    expect(token.responses['200'].content['application/json'].schema.required).toEqual([
      'access_token',
      'token_type',
      'expires_in',
    ]);
    const error = token.responses['401'].content['application/json'].schema;
    expect(error.required).toEqual(['error', 'error_description']);
    expect(error.properties.error.enum).toContain('invalid_client');
    const schemas = doc.paths['/schemas/payment-details.json'].get;
    expect(schemas.security).toEqual([]);
    expect(Object.keys(schemas.responses['200'].content)).toEqual(['application/schema+json']);
  });

  it('describes the notifications as OpenAPI webhooks: the Authentication Notification and the payment events', () => {
    expect(Object.keys(doc.webhooks)).toEqual([
      'authentication',
      'payment.authorized',
      'payment.failed',
      'payment.captured',
      'payment.refunded',
      'payment.reversed',
    ]);
    expect(JSON.stringify(doc.webhooks['payment.captured'])).toContain('#/components/schemas/PaymentEvent');
    const authentication = doc.webhooks.authentication.post.requestBody.content['application/json'].schema;
    expect(authentication.properties.authenticationResponse.required).toContain('threeDSServerTransID');
  });
});

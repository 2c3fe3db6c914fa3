/**
 * Request bodies openapi.json shows as examples (and the API docs page, /docs, puts into "Try it out"), typed by their
 * contracts so that they cannot drift from the schema: each is a request a sandbox merchant can send as it is, with
 * Paygate's names and types (paygate-v2-wire.md) and the sandbox's test cards (docs/test-cards.md). A test sends every
 * example to a running Kassa (test/docs/openapi-examples.test.ts).
 */
import type { CreatePaymentRequest, CreateSessionRequest } from '../../contracts/create-request.js';
import type { CaptureRequest, RefundRequest, ReversalRequest } from '../../contracts/follow-up.js';

/** The browser data of a DIRECT browser payment, as the shop's page collects it for EMV 3-D Secure. */
const browserInfo = {
  acceptHeaders: 'text/html,application/xhtml+xml',
  javaEnabled: false,
  javaScriptEnabled: true,
  language: 'da-DK',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0',
  ipAddress: '192.0.2.10',
  colorDepth: 24,
  screenHeight: 1080,
  screenWidth: 1920,
  timeZoneOffset: '-60',
} satisfies CreatePaymentRequest['browserInfo'];

/** Where the cardholder's browser goes back to after the hosted pages (`?PayID=<payId>` is appended). */
const urls = { return: 'https://shop.example/checkout/return', cancel: 'https://shop.example/checkout/cancel' };

/** One named example of a request body (OpenAPI 3.1 Example Object). */
export interface RequestExample<T> {
  summary: string;
  value: T;
}

/**
 * The examples of each request body, by its shared schema's name (shared-schemas.ts): the media type's `examples` of
 * every operation whose body is that schema (withRequestExamples). Amounts in minor units.
 */
export const REQUEST_EXAMPLES: {
  CreatePaymentRequest: Record<string, RequestExample<CreatePaymentRequest>>;
  CreateSessionRequest: Record<string, RequestExample<CreateSessionRequest>>;
  CaptureRequest: Record<string, RequestExample<CaptureRequest>>;
  RefundRequest: Record<string, RequestExample<RefundRequest>>;
  ReversalRequest: Record<string, RequestExample<ReversalRequest>>;
} = {
  CreatePaymentRequest: {
    direct: {
      summary: 'DIRECT: 125.00 DKK, frictionless 3-D Secure (Y), approved and captured at once',
      value: {
        transId: 'order-1001',
        refNr: '000000001001',
        amount: { value: 12500, currency: 'DKK' },
        channel: 'ECOM',
        statementDescriptor: 'DEMO SHOP',
        paymentMethods: {
          type: 'CARD',
          integrationType: 'DIRECT',
          card: {
            number: '4000000000010001',
            expiryDate: '203012',
            securityCode: '123',
            cardHolderName: 'Alma Jensen',
            threeDsPolicy: { challengePreference: 'NO_PREFERENCE' },
          },
        },
        browserInfo,
      },
    },
    hosted: {
      summary: "HOSTED: 49.95 DKK, the card typed on Kassa's card step, authorized only (captured later)",
      value: {
        transId: 'order-1002',
        amount: { value: 4995, currency: 'DKK' },
        captureMethod: { type: 'MANUAL' },
        language: 'da',
        paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
        urls,
      },
    },
  },
  CreateSessionRequest: {
    order: {
      summary: 'A hosted payment page for an order of two lines, 249.00 DKK',
      value: {
        transId: 'order-1003',
        amount: { value: 24900, currency: 'DKK' },
        language: 'en',
        order: {
          merchantReference: 'order-1003',
          items: [
            { name: 'Coffee beans, 1 kg', quantity: 1, grossPrice: 19900, taxRate: 2500 },
            { name: 'Shipping', type: 'shipping_fee', quantity: 1, grossPrice: 5000, taxRate: 2500 },
          ],
        },
        urls,
      },
    },
  },
  CaptureRequest: {
    partial: {
      summary: "60.00 DKK of a MANUAL payment's authorization, the rest left open",
      value: { transId: 'capture-1002', amount: { value: 6000, currency: 'DKK' } },
    },
  },
  RefundRequest: {
    partial: {
      summary: '25.00 DKK of what was captured',
      value: { transId: 'refund-1001', amount: { value: 2500, currency: 'DKK' } },
    },
  },
  ReversalRequest: {
    whole: {
      summary: 'The whole uncaptured authorization (no amount: all of it)',
      value: { transId: 'reversal-1002' },
    },
  },
};

/**
 * `document` (openapi.json) with the media type `examples` of REQUEST_EXAMPLES on every operation whose JSON body is
 * one of its schemas. Done on the finished document because @fastify/swagger drops the siblings of a body's `$ref`.
 * @returns the same document, changed in place.
 */
export function withRequestExamples<D>(document: D): D {
  const paths = (document as { paths?: Record<string, Record<string, unknown>> }).paths ?? {};
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const media = (operation as { requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } })
        .requestBody?.content?.['application/json'];
      const name = media?.schema?.$ref?.replace('#/components/schemas/', '');
      if (media !== undefined && name !== undefined && name in REQUEST_EXAMPLES) {
        Object.assign(media, { examples: REQUEST_EXAMPLES[name as keyof typeof REQUEST_EXAMPLES] });
      }
    }
  }
  return document;
}

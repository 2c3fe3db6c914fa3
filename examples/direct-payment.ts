/**
 * A merchant's server-to-server (DIRECT) integration with Kassa, written the way a real one is, with Kassa's typed
 * client (`kassa/client`: openapi-fetch over types generated from openapi.json): OAuth 2 client credentials (the
 * client caches the token), payments created with an Idempotency-Key, read back by transId, then a capture and a
 * refund. Field names are Paygate v2's (docs/paygate-compatibility.md).
 *
 * Run against a local Kassa (its self-signed certificate trusted through NODE_EXTRA_CA_CERTS):
 *
 *   NODE_EXTRA_CA_CERTS=.kassa/tls-cert.pem KASSA_URL=https://localhost:8443 \
 *   KASSA_MERCHANT_ID=demo KASSA_API_KEY=kassa_sk_… node --import tsx examples/direct-payment.ts
 */
import { type CreatePaymentRequest, createKassaClient, type PaymentDetails } from 'kassa/client';

const kassa = createKassaClient({
  baseUrl: requireEnv('KASSA_URL'),
  merchantId: requireEnv('KASSA_MERCHANT_ID'),
  apiKey: requireEnv('KASSA_API_KEY'),
  auth: 'oauth2',
});

function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`Set ${name} (see the comment at the top of this file).`);
    process.exit(2);
  }
  return value;
}

/** The answer's data, or the problem's text (problem+json: code, responseDescription). */
function ok<T>(res: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (res.data === undefined) {
    const problem = res.error as { code?: string; responseDescription?: string } | undefined;
    throw new Error(`${what} → ${res.response.status} ${problem?.code}: ${problem?.responseDescription}`);
  }
  return res.data;
}

/** What the shop's checkout collected from the cardholder's browser (needed for 3-D Secure). */
const browserInfo: CreatePaymentRequest['browserInfo'] = {
  acceptHeaders: 'text/html,application/xhtml+xml',
  javaEnabled: false,
  javaScriptEnabled: true,
  language: 'da-DK',
  colorDepth: 24,
  screenHeight: 1080,
  screenWidth: 1920,
  timeZoneOffset: '-60', // minutes, as a string (Paygate; a number is accepted too)
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) ExampleShop/1.0',
  ipAddress: '192.0.2.10',
};

async function pay(
  label: string,
  cardNumber: string,
  captureMethod: 'AUTOMATIC' | 'MANUAL' = 'AUTOMATIC',
): Promise<PaymentDetails> {
  const transId = `order-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const created = ok(
    await kassa.POST('/api/v2/payments', {
      body: {
        transId,
        refNr: `invoice-${transId.slice(-6)}`,
        amount: { value: 24_900, currency: 'DKK' }, // 249.00 DKK in minor units
        captureMethod: { type: captureMethod },
        paymentMethods: {
          type: 'CARD',
          integrationType: 'DIRECT',
          card: { number: cardNumber, expiryDate: '203012', securityCode: '123', cardHolderName: 'Alma Jensen' },
        },
        browserInfo,
      },
    }),
    'create payment',
  );
  // Read it back the way a merchant reconciles: by its own transId.
  const details = ok(
    await kassa.GET('/api/v2/payments/getByTransId/{transID}', { params: { path: { transID: transId } } }),
    'getByTransId',
  );
  console.log(`\n== ${label}: ${details.status} ${details.responseCode} (${details.responseDescription})`);
  console.log(JSON.stringify(details, null, 2));
  if (details.payId !== created.payId) throw new Error('getByTransId returned another payment');
  return details;
}

console.log('OAuth 2 client credentials: the client fetches and caches the access token');
await pay('Visa, 3-D Secure Y (frictionless)', '4000000000010001');
await pay('Visa, 3-D Secure N (not authenticated)', '4000000000010027');
await pay('Visa, declined by the issuer (insufficient funds)', '4000000000011009');

// MANUAL capture: authorize at checkout, capture what ships, refund what comes back. Amounts are the merchant's own
// (minor units); Kassa answers each operation's result with the binding totals in `payment`.
const order = await pay('Mastercard, MANUAL capture: authorized', '5100000000010007', 'MANUAL');
const path = { params: { path: { payId: order.payId } } };
const captured = ok(
  await kassa.POST('/api/v2/payments/{payId}/captures', {
    ...path,
    body: { transId: `${order.transId}-ship-1`, amount: { value: 15_000, currency: 'DKK' }, refNr: 'shipment-1' },
  }),
  'capture',
);
console.log(`\n== captured 150.00 DKK: ${captured.status}`);
const refunded = ok(
  await kassa.POST('/api/v2/payments/{payId}/refunds', {
    ...path,
    body: { transId: `${order.transId}-return-1`, amount: { value: 4_000, currency: 'DKK' }, refNr: 'return-1' },
  }),
  'refund',
);
console.log(`== refunded 40.00 DKK: ${refunded.status}`);
const details = ok(
  await kassa.GET('/api/v2/payments/getByPayId/{payID}', { params: { path: { payID: order.payId } } }),
  'getByPayId',
);
console.log('\n== after a partial capture and a partial refund');
console.log(JSON.stringify(details, null, 2));

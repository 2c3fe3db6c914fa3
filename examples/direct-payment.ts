/**
 * A merchant's server-to-server (DIRECT) integration with Kassa, written the way a real one is:
 * OAuth 2 client credentials → access token → create payments with an Idempotency-Key → read them back.
 *
 * Run against a local Kassa (its self-signed certificate trusted through NODE_EXTRA_CA_CERTS):
 *
 *   NODE_EXTRA_CA_CERTS=.kassa/tls-cert.pem KASSA_URL=https://localhost:8443 \
 *   KASSA_MERCHANT_ID=demo KASSA_API_KEY=kassa_sk_… node --import tsx examples/direct-payment.ts
 *
 * Uses only Node's built-in fetch: no Kassa SDK is needed.
 */
import { randomUUID } from 'node:crypto';

const baseUrl = requireEnv('KASSA_URL');
const merchantId = requireEnv('KASSA_MERCHANT_ID');
const apiKey = requireEnv('KASSA_API_KEY');

function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`Set ${name} (see the comment at the top of this file).`);
    process.exit(2);
  }
  return value;
}

/** spec §4.1: exchange merchantId and API key for a Bearer token. */
async function getAccessToken(): Promise<{ token: string; expiresIn: number }> {
  const res = await fetch(`${baseUrl}/authorization/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: merchantId, client_secret: apiKey }),
  });
  const body = (await res.json()) as { access_token: string; expires_in: number; error?: string };
  if (!res.ok) throw new Error(`token request failed: ${res.status} ${body.error}`);
  return { token: body.access_token, expiresIn: body.expires_in };
}

async function api(token: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json', 'idempotency-key': randomUUID() }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${json.code}: ${json.detail}`);
  return json;
}

/** What the shop's checkout collected from the cardholder's browser (needed for 3-D Secure). */
const browserInfo = {
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
  token: string,
  label: string,
  cardNumber: string,
  captureMethod: 'AUTOMATIC' | 'MANUAL' = 'AUTOMATIC',
) {
  const transId = `order-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const created = await api(token, 'POST', '/api/v1/payments', {
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
  });
  // Read it back the way a merchant reconciles: by its own transId.
  const details = await api(token, 'GET', `/api/v1/payments/getByTransId/${encodeURIComponent(transId)}`);
  console.log(`\n== ${label}: ${details.status} ${details.responseCode} (${details.responseDescription})`);
  console.log(JSON.stringify(details, null, 2));
  if (details.payId !== created.payId) throw new Error('getByTransId returned another payment');
  return details;
}

const { token, expiresIn } = await getAccessToken();
console.log(`access token obtained (expires in ${expiresIn} s)`);
await pay(token, 'Visa, 3-D Secure Y (frictionless)', '4000000000010001');
await pay(token, 'Visa, 3-D Secure N (not authenticated)', '4000000000010027');
await pay(token, 'Visa, declined by the issuer (insufficient funds)', '4000000000011009');

// MANUAL capture: authorize at checkout, capture what ships, refund what comes back. Amounts are the merchant's own
// (minor units); Kassa answers the binding totals.
const order = await pay(token, 'Mastercard, MANUAL capture: authorized', '5100000000010007', 'MANUAL');
const payPath = `/api/v1/payments/${order.payId}`;
const captured = await api(token, 'POST', `${payPath}/captures`, {
  transId: order.transId,
  amount: { value: 15_000, currency: 'DKK' }, // the first parcel: 150.00 of 249.00 DKK
  refNr: 'shipment-1',
});
console.log(`\n== captured 150.00 DKK: ${captured.status}`);
const refunded = await api(token, 'POST', `${payPath}/refunds`, {
  transId: order.transId,
  amount: { value: 4_000, currency: 'DKK' }, // one item returned: 40.00 DKK
  refNr: 'return-1',
});
console.log(`== refunded 40.00 DKK: ${refunded.status}`);
const details = await api(token, 'GET', `/api/v1/payments/getByPayId/${order.payId}`);
console.log('\n== after a partial capture and a partial refund');
console.log(JSON.stringify(details, null, 2));

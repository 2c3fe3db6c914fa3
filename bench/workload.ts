/** The requests the benchmark sends, and the merchant that sends them. */
import { Agent, fetch } from 'undici';
import { KassaError } from '../src/domain/errors/error-catalogue.js';
import type { MerchantService } from '../src/domain/merchants/merchant-service.js';
import { luhnCheckDigit } from '../src/domain/payments/card-checks.js';

export const BENCH_MERCHANT_ID = 'bench';

/**
 * The HTTP Basic `authorization` header of the sandbox merchant BENCH_MERCHANT_ID (DK, DKK): created, or issued a new
 * API key when an earlier server of the run (or an earlier run on the same data directory) created it.
 */
export async function benchMerchantAuthorization(merchants: MerchantService): Promise<string> {
  let apiKey: string;
  try {
    const created = await merchants.createMerchant({
      merchantId: BENCH_MERCHANT_ID,
      country: 'DK',
      currency: 'DKK',
      sandbox: true,
    });
    apiKey = created.apiKey;
  } catch (error) {
    if (!(error instanceof KassaError) || error.code !== 'MERCHANT_EXISTS') throw error;
    apiKey = (await merchants.rotateApiKey(BENCH_MERCHANT_ID)).apiKey;
  }
  return `Basic ${Buffer.from(`${BENCH_MERCHANT_ID}:${apiKey}`).toString('base64')}`;
}

/** A Visa test card the simulators authenticate frictionlessly (3-D Secure Y) and authorize. */
function pan(scenario: string): string {
  const p = `40000000000${scenario}`;
  return p + luhnCheckDigit(p);
}
const CARD = { number: pan('1000'), expiryDate: '203012', securityCode: '123' };

/** POST /api/v1/payments body: DIRECT, browser channel, frictionless 3-D Secure, AUTOMATIC capture (the default). */
export function directPaymentBody(transId: string): string {
  return JSON.stringify({
    transId,
    amount: { value: 12_500, currency: 'DKK' },
    paymentMethods: { type: 'CARD', integrationType: 'DIRECT', card: CARD },
    browserInfo: { acceptHeaders: 'text/html', javaScriptEnabled: true, language: 'da', userAgent: 'bench' },
  });
}

/** POST /api/v1/payments/sessions body: a hosted payment page session. */
export function sessionBody(transId: string): string {
  return JSON.stringify({
    transId,
    amount: { value: 12_500, currency: 'DKK' },
    urls: { return: 'https://shop.example/return', cancel: 'https://shop.example/cancel' },
  });
}

/**
 * How many payments the lookup phases read, each request the next (a single payId read over and over would let
 * PostgreSQL's batched lookups share one row among their callers, and keep caches warm, which merchants reading their
 * own payments do not).
 */
export const LOOKUP_PAYMENTS = 1_000;

/**
 * Creates `count` DIRECT payments through the API of the Kassa at `url`, `concurrency` at a time, from the calling
 * process (the lookup phase's 1,000 from the bench runner: 32 client connections inside the server raised the peak
 * RSS the bench reports). @returns their payIds, in no order.
 * @throws Error on an answer other than 201.
 */
export async function createPayments(
  url: string,
  authorization: string,
  count: number,
  transIdPrefix: string,
  concurrency = 32,
): Promise<string[]> {
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } }); // the run's self-signed certificate
  const payIds: string[] = [];
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started < count) {
      const n = started++;
      const response = await fetch(`${url}/api/v1/payments`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: directPaymentBody(`${transIdPrefix}-${n}`),
        dispatcher,
      });
      if (response.status !== 201) throw new Error(`payment ${n}: HTTP ${response.status} ${await response.text()}`);
      payIds.push(((await response.json()) as { payId: string }).payId);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await dispatcher.close();
  }
  return payIds;
}

import type { Config } from '../config/config.js';
import type { HostedLinks } from '../hosted/links.js';
import type { Services } from '../services.js';

/** The sandbox merchant created on first start (DESIGN.md §3). */
export const DEMO_MERCHANT_ID = 'demo';

/** The demo merchant created on first start with an empty database (DESIGN.md §3). */
export const DEMO_MERCHANT = {
  merchantId: DEMO_MERCHANT_ID,
  name: 'Kassa Demo Shop',
  country: 'DK',
  currency: 'DKK',
} as const;

/**
 * Creates the sandbox merchant `demo` when the database has no merchant yet (first start) and KASSA_DEMO is on, and
 * returns the text that shows its credentials once; undefined when there were merchants already or KASSA_DEMO=off.
 * Only a sandbox merchant's credentials are ever returned: a production merchant's API key is never printed or
 * logged (PCI DSS 8.3.2: authentication factors unreadable in transmission and storage, logs included).
 */
export async function ensureDemoMerchant(
  services: Pick<Services, 'merchants'>,
  config: Pick<Config, 'demo'>,
): Promise<string | undefined> {
  if (!config.demo || (await services.merchants.hasMerchants())) return undefined;
  const demo = await services.merchants.createMerchant({ ...DEMO_MERCHANT, sandbox: true });
  return [
    '',
    'Created the sandbox merchant "demo" (DK, DKK). Its credentials are shown only this once:',
    `  merchantId:    ${demo.merchant.merchantId}`,
    `  keyId:         ${demo.keyId}`,
    `  apiKey:        ${demo.apiKey}`,
    `  webhookSecret: ${demo.merchant.webhookSecret}`,
    '',
  ].join('\n');
}

/**
 * A ready-to-open demo checkout (DESIGN.md §3): a hosted payment page session of the sandbox `demo` merchant, valid
 * 24 h, returning to Kassa's demo-shop page. Undefined when there is no sandbox `demo` merchant (a production setup).
 */
export async function createDemoCheckout(
  services: Pick<Services, 'merchants' | 'hosted'>,
  links: HostedLinks,
  config: Pick<Config, 'publicUrl'>,
): Promise<string | undefined> {
  const merchant = await services.merchants.getMerchant(DEMO_MERCHANT_ID).catch(() => undefined);
  if (!merchant?.sandbox) return undefined;
  const session = await services.hosted.createSession(merchant, {
    merchantId: merchant.merchantId,
    transId: `demo-${Date.now().toString(36)}`,
    amount: { value: 12_500, currency: merchant.currency },
    captureMethod: 'AUTOMATIC',
    order: {
      merchantReference: 'demo',
      items: [
        { name: 'Coffee beans, 500 g', quantity: 1, grossPrice: 9_500 },
        { name: 'Shipping', quantity: 1, grossPrice: 3_000 },
      ],
    },
    urls: { return: `${config.publicUrl}/hosted/demo/return`, cancel: `${config.publicUrl}/hosted/demo/cancel` },
    expiresInSeconds: 24 * 60 * 60,
  });
  return links.url('session', session.sessionId, session.expiresAt);
}

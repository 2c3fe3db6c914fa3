/**
 * A merchant's notification endpoint for Kassa (docs/notifications.md): verifies each Standard Webhooks signature,
 * drops duplicates by `webhook-id` (delivery is at-least-once), answers 2xx fast, and prints what it got.
 *
 *   KASSA_WEBHOOK_SECRET=whsec_… PORT=3000 node --import tsx examples/notification-receiver.ts
 *
 * then point Kassa at it: `kassa merchant set <merchantId> --webhook-url http://127.0.0.1:3000/kassa/notifications`
 * (http and loopback URLs are for sandbox merchants; production needs a public https URL).
 */
import { createServer } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

const secret = process.env.KASSA_WEBHOOK_SECRET;
if (!secret?.startsWith('whsec_')) {
  console.error('Set KASSA_WEBHOOK_SECRET to the merchant webhook secret (whsec_…).');
  process.exit(2);
}
const port = Number(process.env.PORT ?? 3000);
const webhook = new Webhook(secret);

/** Ids already handled. A real shop keeps them in its database (a unique column), next to what it did. */
const seen = new Set<string>();

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/kassa/notifications') {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8'); // verify the exact bytes: never re-serialise first
    let event: { type: string; payId?: string; status?: string; authenticationResponse?: { transStatus: string } };
    try {
      // Checks the HMAC and that webhook-timestamp is within 5 minutes (replay protection).
      event = webhook.verify(body, req.headers as Record<string, string>) as typeof event;
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      console.log(`rejected: ${error.message}`);
      res.writeHead(400).end();
      return;
    }
    const id = String(req.headers['webhook-id']);
    if (seen.has(id)) {
      console.log(`duplicate ${id} ignored`);
      res.writeHead(204).end();
      return;
    }
    seen.add(id);
    const detail =
      event.type === 'authentication'
        ? `transStatus ${event.authenticationResponse?.transStatus}`
        : `status ${event.status ?? '?'}`;
    console.log(`received ${event.type} for payment ${event.payId} (${detail}) id ${id}`);
    // Answer within 10 s; do slow work (emails, fulfilment) after answering.
    res.writeHead(204).end();
  });
});

server.listen(port, () => console.log(`listening on http://127.0.0.1:${port}/kassa/notifications`));

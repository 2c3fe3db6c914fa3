/**
 * Merchant and cardholder journeys spread over several Kassa nodes, each step on the next node (round-robin), as a
 * load balancer without affinity spreads them. A step whose node is down (connection refused or cut) is retried on
 * the next live node with the same Idempotency-Key, as a merchant's client retries through the balancer.
 */
import { randomUUID } from 'node:crypto';
import { IN_FLIGHT } from '../../src/domain/payments/authorization-recovery.js';
import { directPayment, testPan } from '../helpers/cards.js';
import { FormClient, formWithAction, type PageForm } from '../helpers/form-client.js';
import { followToMerchant } from '../helpers/hosted-client.js';
import type { CallOptions, CallResult } from '../helpers/test-kassa.js';
import type { KassaNodes } from './kassa-nodes.js';

export const RETURN = 'https://shop.example/return';
export const CANCEL = 'https://shop.example/cancel';

export type JourneyKind = 'DIRECT_SALE' | 'MANUAL_CAPTURES' | 'REVERSAL' | 'CHALLENGE' | 'HOSTED' | 'SESSION';
export const JOURNEY_KINDS: JourneyKind[] = [
  'DIRECT_SALE',
  'MANUAL_CAPTURES',
  'REVERSAL',
  'CHALLENGE',
  'HOSTED',
  'SESSION',
];

/** What the merchant was told (acknowledged) during a journey. */
export interface JourneyOutcome {
  kind: JourneyKind;
  transId: string;
  payId?: string;
  /** Every acknowledged (2xx) follow-up: its xId, kind and amount in the merchant's basis. */
  followUps: { kind: 'captures' | 'refunds' | 'reversals'; xId: string; value: number }[];
  /** Nodes each step ran on (round-robin shows the spread). */
  nodes: number[];
  /** Final status as read at the end of the journey. */
  status?: string;
}

export class Journeys {
  private next = 0;
  /** Nodes a test has taken down: steps skip them. */
  readonly down = new Set<number>();
  readonly client: FormClient;
  /** Steps that had to move to another node because theirs was down. */
  rerouted = 0;

  constructor(
    private readonly k: KassaNodes,
    ca: string,
  ) {
    this.client = new FormClient(ca);
  }

  /** The live node after the last one `nodes` used (a journey's steps go round-robin), or the next one overall. */
  pick(nodes: number[] = []): number {
    const last = nodes.at(-1);
    let i = last === undefined ? this.next++ : last + 1;
    for (let tries = 0; tries < this.k.nodes.length; tries++, i++) {
      const node = i % this.k.nodes.length;
      if (!this.down.has(node)) return node;
    }
    throw new Error('every node is down');
  }

  /** An API call on the next node; on a transport error (node gone) the same call on the following live node. */
  async call(method: string, path: string, options: CallOptions, nodes: number[]): Promise<CallResult> {
    let lastError: unknown;
    let lastTried = -1;
    for (let tries = 0; tries < this.k.nodes.length + 1; tries++) {
      const node = this.pick(tries === 0 ? nodes : [...nodes, lastTried]);
      lastTried = node;
      try {
        const res = await this.k.call(node, method, path, options);
        nodes.push(node);
        return res;
      } catch (error) {
        lastError = error;
        this.rerouted++;
      }
    }
    throw lastError;
  }

  /** A browser step (page GET or form POST) on the next live node. */
  async page(url: string, nodes: number[], form?: Record<string, string>) {
    let lastError: unknown;
    let lastTried = -1;
    for (let tries = 0; tries < this.k.nodes.length + 1; tries++) {
      const node = this.pick(tries === 0 ? nodes : [...nodes, lastTried]);
      lastTried = node;
      try {
        const res = form
          ? await this.client.post(this.k.urlOn(node, url), form)
          : await this.client.get(this.k.urlOn(node, url));
        nodes.push(node);
        return res;
      } catch (error) {
        lastError = error;
        this.rerouted++;
      }
    }
    throw lastError;
  }

  private get auth() {
    return { merchantId: this.k.merchant.merchantId, apiKey: this.k.merchant.apiKey };
  }

  private post(path: string, json: unknown, nodes: number[], key = randomUUID()) {
    return this.call('POST', path, { auth: this.auth, json, headers: { 'idempotency-key': key } }, nodes);
  }

  async details(payId: string, nodes: number[] = []) {
    return (await this.call('GET', `/api/v1/payments/getByPayId/${payId}`, { auth: this.auth }, nodes)).body;
  }

  private async followUp(
    out: JourneyOutcome,
    kind: 'captures' | 'refunds' | 'reversals',
    value: number,
  ): Promise<CallResult> {
    const res = await this.post(
      `/api/v1/payments/${out.payId}/${kind}`,
      { transId: out.transId, amount: { value, currency: 'DKK' } },
      out.nodes,
    );
    if (res.status >= 200 && res.status < 300) {
      const details = res.body.payment ?? res.body;
      out.followUps.push({ kind, xId: res.body.xId ?? details.operations?.at(-1)?.xId ?? '', value });
    }
    return res;
  }

  /** Creates a DIRECT payment of `amount` (minor units, DKK) for the journey, on the next node; expects 201. */
  private async createDirect(
    out: JourneyOutcome,
    pan: string,
    amount: number,
    extra: Record<string, unknown> = {},
  ): Promise<CallResult> {
    const body = directPayment(pan, { transId: out.transId, amount: { value: amount, currency: 'DKK' }, ...extra });
    const created = await this.post('/api/v1/payments', body, out.nodes);
    if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text}`);
    out.payId = created.body.payId;
    return created;
  }

  /** Runs one journey of `kind` with amounts from `amount` (minor units, ≥ 100). */
  async run(kind: JourneyKind, amount: number): Promise<JourneyOutcome> {
    const out: JourneyOutcome = { kind, transId: `${kind.toLowerCase()}-${randomUUID()}`, followUps: [], nodes: [] };
    switch (kind) {
      case 'DIRECT_SALE': {
        await this.createDirect(out, testPan('40000000', '1000'), amount);
        await this.followUp(out, 'refunds', Math.floor(amount / 3));
        break;
      }
      case 'MANUAL_CAPTURES': {
        await this.createDirect(out, testPan('51000000', '1000'), amount, { captureMethod: { type: 'MANUAL' } });
        const first = Math.floor(amount / 2);
        await this.followUp(out, 'captures', first);
        await this.followUp(out, 'captures', amount - first);
        await this.followUp(out, 'refunds', Math.floor(amount / 4));
        break;
      }
      case 'REVERSAL': {
        await this.createDirect(out, testPan('40000002', '1000'), amount, { captureMethod: { type: 'MANUAL' } });
        await this.followUp(out, 'reversals', amount);
        break;
      }
      case 'CHALLENGE': {
        const created = await this.createDirect(out, testPan('40000000', '1005'), amount, {
          urls: { return: RETURN, cancel: CANCEL },
        });
        // Kassa's challenge page on the next node; the ACS answers where its acsURL points (the simulated ACS lives
        // in the node that began the authentication, as a real ACS is one service); the CRes comes back to Kassa on
        // yet another node.
        const href: string = created.body._links.redirect.href;
        const kassaPage = await this.page(href, out.nodes);
        const node = out.nodes[out.nodes.length - 1] as number;
        const toAcs = formWithAction(kassaPage.html, this.k.urlOn(node, href), '/simulator/acs/challenge');
        const acsPage = await this.client.submit(toAcs);
        const answer = formWithAction(acsPage.html, toAcs.action, '/simulator/acs');
        const cresPage = await this.client.submit(answer, { action: 'submit', otp: '1234' });
        const toKassa = formWithAction(cresPage.html, answer.action, '/3ds/');
        await this.page(toKassa.action, out.nodes, toKassa.fields);
        break;
      }
      case 'HOSTED': {
        const created = await this.post(
          '/api/v1/payments',
          {
            transId: out.transId,
            amount: { value: amount, currency: 'DKK' },
            paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
            urls: { return: RETURN, cancel: CANCEL },
          },
          out.nodes,
        );
        if (created.status !== 202) throw new Error(`create answered ${created.status}: ${created.text}`);
        out.payId = created.body.payId;
        // Commercial Visa: surcharged 1.8 % (the merchant's rule), shown and confirmed on the hosted pages.
        await this.cardAndConfirm(created.body._links.redirect.href, testPan('40000010', '1000'), out.nodes);
        await this.followUp(out, 'refunds', Math.floor(amount / 5));
        break;
      }
      case 'SESSION': {
        const created = await this.post(
          '/api/v1/payments/sessions',
          {
            transId: out.transId,
            amount: { value: amount, currency: 'DKK' },
            order: {
              merchantReference: out.transId.slice(0, 30),
              items: [{ name: 'Item', quantity: 1, grossPrice: amount }],
            },
            urls: { return: RETURN, cancel: CANCEL },
          },
          out.nodes,
        );
        if (created.status !== 201) throw new Error(`session answered ${created.status}: ${created.text}`);
        const checkout = await this.page(created.body._links.redirect.href, out.nodes);
        const start = formWithAction(checkout.html, this.k.urlOn(0, '/'), '/start');
        const started = await this.page(start.action, out.nodes, start.fields);
        await this.cardAndConfirm(started.headers.get('location') ?? '', testPan('40000010', '1000'), out.nodes);
        const latest = await this.call(
          'GET',
          `/api/v1/payments/getByTransId/${out.transId}`,
          { auth: this.auth },
          out.nodes,
        );
        out.payId = latest.body.payId;
        break;
      }
    }
    if (out.payId) {
      const details = await this.details(out.payId, out.nodes);
      // A step the kill cut while the payment was with the directory server or the acquirer (the hosted confirm, on
      // the node that died): the retried step found it in flight and, after waiting, sent the browser to the shop with
      // the payment PENDING, as Kassa does. Not acknowledged: the authorization sweep resolves it (after 2 min).
      if (details.status === 'PENDING' && IN_FLIGHT.has(details.responseCode)) {
        throw new Error(`IN_FLIGHT: ${out.payId} still PENDING ${details.responseCode} after its steps`);
      }
      out.status = details.status;
    }
    return out;
  }

  /** The hosted card step, the review and the confirmation, each on the next node, then on to the merchant. */
  private async cardAndConfirm(cardUrl: string, pan: string, nodes: number[]): Promise<void> {
    const cardPage = await this.page(cardUrl, nodes);
    const card: PageForm = formWithAction(cardPage.html, this.k.urlOn(0, '/'), '/card');
    const afterCard = await this.page(card.action, nodes, {
      ...card.fields,
      number: pan,
      expiry: '12/30',
      securityCode: '123',
      cardholderName: 'Alma Jensen',
    });
    if (afterCard.status !== 303)
      throw new Error(`card step answered ${afterCard.status}: ${afterCard.html.slice(0, 300)}`);
    const review = await this.page(afterCard.headers.get('location') ?? '', nodes);
    const confirm = formWithAction(review.html, this.k.urlOn(0, '/'), '/confirm');
    const done = await this.page(confirm.action, nodes, confirm.fields);
    const node = this.pick(nodes);
    nodes.push(node);
    // A redirect to one of Kassa's pages goes on on the next node; one to the shop (a payment already ended, or still
    // in flight after a cut step) stays as it is.
    const location = done.headers.get('location');
    const onKassa =
      location !== null && (!/^https?:/.test(location) || this.k.nodes.some((n) => location.startsWith(n.url)));
    const walked = await followToMerchant(this.client, this.k.nodes[node]?.url ?? '', {
      ...done,
      headers: new Headers(location === null ? {} : { location: onKassa ? this.k.urlOn(node, location) : location }),
    });
    if (!walked.external?.startsWith(RETURN))
      throw new Error(`hosted flow ended at ${JSON.stringify(walked).slice(0, 300)}`);
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

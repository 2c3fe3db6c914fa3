import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { KassaError } from '../domain/errors/error-catalogue.js';
import {
  HOSTED_LINK_TTL_SECONDS,
  type HostedPaymentService,
  hostedPaymentExpiresAt,
  isWaitingForCard,
} from '../domain/payments/hosted-payment-service.js';
import type { Payment } from '../domain/payments/payment.js';
import { mayRetryInSession, returnUrlOf } from '../domain/payments/return-url.js';
import type { Clock } from '../domain/ports/clock.js';
import { isHexId } from '../domain/ports/id-generator.js';
import { reviewDigest } from '../domain/surcharge/surcharge-consent.js';
import { browserInfoOf } from './browser-info.js';
import { formFields, pathParam } from './form-fields.js';
import { type Language, MESSAGES, pickLanguage } from './i18n.js';
import type { HostedLinks } from './links.js';
import { MerchantHeader, type MerchantTexts, merchantTextsOf } from './merchant-texts.js';
import { formatMoney } from './money.js';
import { type CardFormValues, CardStepPage } from './pages/card-step-page.js';
import { CheckoutPage } from './pages/checkout-page.js';
import { Layout } from './pages/layout.js';
import { MessagePage } from './pages/message-page.js';
import { ReviewPage } from './pages/review-page.js';
import type { SaveCardPurpose } from './pages/stored-card-disclosure.js';
import { merchantOrigins, newNonce, sendPage } from './render.js';

export interface HostedPagesOptions {
  hosted: HostedPaymentService;
  links: HostedLinks;
  clock: Clock;
}

/** What the card step must disclose when the payment stores the card (an initial `credentialOnFile` payment). */
function saveCardPurpose(payment: Payment): SaveCardPurpose | undefined {
  const cof = payment.informational?.credentialOnFile;
  if (cof === undefined || cof.initialPayment !== true) return undefined;
  return { type: cof.type, ...(cof.installments?.total !== undefined && { installments: cof.installments.total }) };
}
const BRAND_LABEL = { VISA: 'Visa', MASTERCARD: 'Mastercard' } as const;

/** A payment's or session's `urls.return` and `urls.cancel`: the merchant's site. */
type MerchantUrls = { return?: string; cancel?: string };

/** How long a page of a payment whose Pay is being handled elsewhere waits for its next step, ms (`movedOn`). */
const CONFIRMING_WAIT_MS = 5_000;

/** The session status behind an error that ends a session's checkout, if `code` is one. */
function sessionEndedBy(code: string): 'EXPIRED' | 'COMPLETED' | 'FAILED' | undefined {
  if (code === 'SESSION_EXPIRED') return 'EXPIRED';
  if (code === 'SESSION_COMPLETED') return 'COMPLETED';
  return code === 'SESSION_FAILED' ? 'FAILED' : undefined;
}

/**
 * Where 3-D Secure sends the browser at the end of a hosted payment: a declined try inside a hosted payment page
 * session comes back to Kassa (to offer another card); everything else goes to the merchant (`returnUrlOf`).
 */
export function sessionAwareReturnUrl(links: HostedLinks, clock: Clock) {
  return (payment: Payment): string | undefined => {
    if (mayRetryInSession(payment)) {
      return links.url(
        'payment',
        payment.payId,
        new Date(clock.now().getTime() + HOSTED_LINK_TTL_SECONDS * 1000),
        '/result',
      );
    }
    return returnUrlOf(payment);
  };
}

/**
 * What the card step shows filled in on its first view: Paygate's `paymentMethods.card.prefillInfo` as the payment
 * keeps it (cardholder name, expiry YYYYMM shown as MM/YY; never the number or security code).
 */
export function prefilledValues(payment: Payment): CardFormValues {
  const prefill = payment.informational?.card?.prefill;
  const expiry = prefill?.expiryDate;
  return {
    ...(prefill?.cardholderName !== undefined && { cardholderName: prefill.cardholderName }),
    ...(expiry !== undefined && { expiry: `${expiry.slice(4, 6)}/${expiry.slice(2, 4)}` }),
  };
}

/** `MM/YY` (or `MM/YYYY`, `MMYY`) → `YYYYMM`, or '' when it cannot be read. */
export function expiryFromForm(text: string | undefined): string {
  const m = (text ?? '').replace(/\s/g, '').match(/^(\d{1,2})\/?(\d{2}|\d{4})$/);
  if (!m?.[1] || !m[2]) return '';
  const year = m[2].length === 2 ? `20${m[2]}` : m[2];
  return `${year}${m[1].padStart(2, '0')}`;
}

/**
 * Kassa's hosted pages (spec §1.4, §1.8, §1.9; DESIGN.md §8): the hosted payment page's checkout step, the card step
 * and the review step. Server-rendered, working without JavaScript, strict CSP with nonces, CSRF token on every form,
 * reached only through signed, expiring links.
 */
export async function hostedPagesRoutes(app: FastifyInstance, opts: HostedPagesOptions) {
  const { hosted, links, clock } = opts;

  const languageOf = (request: FastifyRequest, explicit?: string) =>
    pickLanguage(explicit, request.headers['accept-language']);

  /**
   * Sends a hosted page; `merchant` adds the merchant's logo and texts (customFields) above the body, with the CSP
   * allowing images from the logo's https origin only, and forms to end at the merchant's return and cancel URLs,
   * whose site may frame the page (a shop plugin's iframe mode; render.ts PagePolicy.framedBy). `merchant` with only
   * `urls`: no header, the framing and forms alone (the message pages of a known payment or session).
   */
  const page = (
    reply: FastifyReply,
    lang: Language,
    title: string,
    body: preact.ComponentChildren,
    status = 200,
    script?: string,
    merchant?: { name?: string; texts?: MerchantTexts; urls?: MerchantUrls },
  ) => {
    const nonce = newNonce();
    const logoOrigin = merchant?.texts?.logoOrigin;
    const formAction = merchantOrigins(merchant?.urls);
    return sendPage(
      reply,
      <Layout lang={lang} title={title} nonce={nonce} script={script}>
        {merchant?.texts && merchant.name !== undefined && (
          <MerchantHeader texts={merchant.texts} merchantName={merchant.name} />
        )}
        {body}
      </Layout>,
      nonce,
      {
        connectSelf: true,
        ...(logoOrigin !== undefined && { imgSrc: [logoOrigin] }),
        ...(formAction.length > 0 && { formAction, framedBy: formAction }),
      },
      status,
    );
  };

  /** A message page; `urls`: the merchant's of the payment or session it is about, whose site may frame it. */
  const message = (
    reply: FastifyReply,
    lang: Language,
    key: 'linkInvalid' | 'sessionExpired' | 'sessionCompleted' | 'sessionFailed' | 'notFound',
    status: number,
    urls?: MerchantUrls,
  ) => {
    const t = MESSAGES[lang];
    return page(reply, lang, t.pageTitle, <MessagePage title={t.pageTitle} message={t[key]} />, status, undefined, {
      urls,
    });
  };

  /** The page of a session that no longer takes cards: expired (410), paid (409), or its card tries used up (409). */
  const sessionEnded = (
    reply: FastifyReply,
    lang: Language,
    status: 'EXPIRED' | 'COMPLETED' | 'FAILED',
    urls?: MerchantUrls,
  ) =>
    status === 'EXPIRED'
      ? message(reply, lang, 'sessionExpired', 410, urls)
      : message(reply, lang, status === 'COMPLETED' ? 'sessionCompleted' : 'sessionFailed', 409, urls);

  /** The merchant URLs of a session, for the framing of its message pages; undefined when it cannot be read. */
  const sessionUrls = async (sessionId: string): Promise<MerchantUrls | undefined> =>
    hosted.sessionForPage(sessionId).then(
      ({ session }) => session.urls,
      () => undefined,
    );

  /**
   * The signed-link check of every payment page; the link token travels in `t` (query or form). A link Kassa signed
   * that has expired (Paygate `expirationTime`, or the link lifetime) says so (410) and ends a payment still waiting
   * for its card, as the expiry sweep would.
   */
  const paymentFromLink = async (request: FastifyRequest, reply: FastifyReply, t: string | undefined) => {
    const payId = pathParam(request, 'payId');
    const link = isHexId(payId) ? links.check('payment', payId, t, clock.now()) : 'INVALID';
    if (link === 'INVALID') {
      await message(reply, languageOf(request), 'linkInvalid', 403);
      return undefined;
    }
    let found: Awaited<ReturnType<HostedPaymentService['paymentForPage']>>;
    try {
      found = await hosted.paymentForPage(payId);
    } catch (error) {
      if (error instanceof KassaError) {
        await message(reply, languageOf(request), 'notFound', 404);
        return undefined;
      }
      throw error;
    }
    if (link === 'EXPIRED' || clock.now().getTime() >= hostedPaymentExpiresAt(found.payment).getTime()) {
      // Only a payment still on the card or review step expires with its link; one in 3-D Secure or final is not
      // touched (a declined session try still reaches its "try another card" page).
      const waiting = isWaitingForCard(found.payment);
      const payment = waiting ? await hosted.expireIfDue(found.payment) : found.payment;
      if (link === 'EXPIRED' || (waiting && payment.status !== 'PENDING')) {
        await message(reply, languageOf(request, payment.language), 'sessionExpired', 410, payment.urls);
        return undefined;
      }
      return { ...found, payment };
    }
    return found;
  };

  const paymentUrl = (payId: string, t: string, suffix = '') =>
    `/hosted/payments/${payId}${suffix}?t=${encodeURIComponent(t)}`;
  /** Where the card and review steps' cancel form posts (one route: the same checks and outcome from both). */
  const cancelUrl = (payId: string) => `/hosted/payments/${payId}/cancel`;

  /**
   * Where a payment that is no longer waiting for its card sends the browser: the merchant's return (or, cancelled,
   * cancel) URL with PayID — except a declined try inside a hosted payment page session, which may be retried with
   * another card while the session is open (DESIGN.md §4).
   */
  const finished = async (request: FastifyRequest, reply: FastifyReply, payment: Payment) => {
    const target = returnUrlOf(payment);
    if (mayRetryInSession(payment) && payment.sessionId) {
      const { session, status } = await hosted.sessionForPage(payment.sessionId);
      if (status === 'OPEN') {
        const lang = languageOf(request, payment.language);
        const tt = MESSAGES[lang];
        const st = links.token('session', session.sessionId, session.expiresAt);
        return page(
          reply,
          lang,
          tt.declinedTitle,
          <MessagePage title={tt.declinedTitle} message={tt.declined}>
            <form method="post" action={`/hosted/sessions/${session.sessionId}/start`}>
              <input type="hidden" name="t" value={st} />
              <input type="hidden" name="csrf" value={links.csrf(session.sessionId, st)} />
              <button type="submit">{tt.tryAgain}</button>
            </form>
            {target && (
              <p>
                <a href={target}>{tt.backToShop}</a>
              </p>
            )}
          </MessagePage>,
          200,
          undefined,
          { urls: session.urls },
        );
      }
    }
    if (!target) return message(reply, 'en', 'notFound', 404);
    return reply.redirect(target, 303);
  };

  /**
   * Where the browser goes for a payment that no longer waits for its card (isWaitingForCard): while its 3-D Secure
   * is open, back to Kassa's page of that step (the 3DS Method, the open challenge, the waiting page) — the hosted
   * link, Back and a second tab resume it, and never take a new card; once final, on to where it ended (`finished`).
   */
  const movedOn = async (request: FastifyRequest, reply: FastifyReply, payment: Payment) => {
    let current = payment;
    let resume = current.status === 'PENDING' ? await hosted.threeDSPageOf(current) : undefined;
    // Pressed Pay a moment ago (a double click, another tab): the first confirmation is handing the payment to 3-D
    // Secure or the acquirer (PENDING 60000001). Wait for its page or its end, up to CONFIRMING_WAIT_MS, rather than
    // send this browser to the shop with the payment still in flight.
    const until = Date.now() + CONFIRMING_WAIT_MS;
    while (resume === undefined && current.status === 'PENDING' && current.responseCode === '60000001') {
      if (Date.now() >= until) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
      current = (await hosted.paymentForPage(current.payId)).payment;
      resume = current.status === 'PENDING' ? await hosted.threeDSPageOf(current) : undefined;
    }
    if (resume !== undefined) return reply.redirect(resume, 303);
    return finished(request, reply, current);
  };

  /**
   * The checks of every payment page: the signed link (`t` from the query, or the form), the CSRF token of a form,
   * and — unless `waiting` is false — that the payment still waits for its card (isWaitingForCard: PENDING 60040001),
   * else on to its current step or where it ended (`movedOn`).
   * @returns the payment, its merchant, the link token and the page language; undefined when it has answered.
   */
  const gate = async (request: FastifyRequest, reply: FastifyReply, how: { form: boolean; waiting?: boolean }) => {
    const source = formFields(how.form ? request.body : request.query);
    const t = source.t ?? '';
    const ctx = await paymentFromLink(request, reply, t);
    if (!ctx) return undefined;
    if (how.form && !links.verifyCsrf(ctx.payment.payId, t, source.csrf)) {
      await message(reply, languageOf(request), 'linkInvalid', 403);
      return undefined;
    }
    if (how.waiting !== false && !isWaitingForCard(ctx.payment)) {
      await movedOn(request, reply, ctx.payment);
      return undefined;
    }
    return { ...ctx, t, lang: languageOf(request, ctx.payment.language) };
  };

  // --- Hosted payment page: checkout step ---------------------------------------------------------------------
  app.get('/hosted/sessions/:sessionId', { schema: { hide: true } }, async (request, reply) => {
    const sessionId = pathParam(request, 'sessionId');
    const t = formFields(request.query).t;
    const link = isHexId(sessionId) ? links.check('session', sessionId, t, clock.now()) : 'INVALID';
    if (link === 'INVALID') return message(reply, languageOf(request), 'linkInvalid', 403);
    const { session, merchant, status } = await hosted.sessionForPage(sessionId);
    // A session link expires with the session (expiresAt, Paygate expirationTime): Kassa signed it, so say expired.
    if (link === 'EXPIRED') {
      return message(reply, languageOf(request, session.language), 'sessionExpired', 410, session.urls);
    }
    const lang = languageOf(request, session.language);
    if (status !== 'OPEN') return sessionEnded(reply, lang, status, session.urls);
    const tt = MESSAGES[lang];
    return page(
      reply,
      lang,
      `${tt.checkoutTitle} – ${merchant.name}`,
      <CheckoutPage
        t={tt}
        lang={lang}
        merchantName={merchant.name}
        session={session}
        action={`/hosted/sessions/${sessionId}/start`}
        cancelAction={`/hosted/sessions/${sessionId}/cancel`}
        linkToken={t ?? ''}
        csrf={links.csrf(sessionId, t ?? '')}
      />,
      200,
      undefined,
      { name: merchant.name, texts: merchantTextsOf(session.informational), urls: session.urls },
    );
  });

  /**
   * A form posted from the checkout page (continue, cancel): the session's signed link and the form's CSRF token are
   * checked, then `act` runs on the session's current try; a session that has ended meanwhile shows its page instead.
   */
  const sessionForm = async (
    request: FastifyRequest,
    reply: FastifyReply,
    act: (sessionId: string) => Promise<FastifyReply>,
  ) => {
    const sessionId = pathParam(request, 'sessionId');
    const form = formFields(request.body);
    const link = isHexId(sessionId) ? links.check('session', sessionId, form.t, clock.now()) : 'INVALID';
    if (link === 'INVALID' || !links.verifyCsrf(sessionId, form.t ?? '', form.csrf)) {
      return message(reply, languageOf(request), 'linkInvalid', 403);
    }
    if (link === 'EXPIRED') {
      return message(reply, languageOf(request), 'sessionExpired', 410, await sessionUrls(sessionId));
    }
    try {
      return await act(sessionId);
    } catch (error) {
      const ended = error instanceof KassaError ? sessionEndedBy(error.code) : undefined;
      if (ended) return sessionEnded(reply, languageOf(request), ended, await sessionUrls(sessionId));
      throw error;
    }
  };

  app.post('/hosted/sessions/:sessionId/start', { schema: { hide: true } }, async (request, reply) =>
    sessionForm(request, reply, async (sessionId) => {
      const payment = await hosted.startSessionPayment(sessionId);
      // The card-step link lasts as long as the try (a resumed try keeps its link: the same URL each time).
      const t = links.token('payment', payment.payId, hostedPaymentExpiresAt(payment));
      return reply.redirect(paymentUrl(payment.payId, t), 303);
    }),
  );

  // The checkout page's cancel: the session's try ends cancelled, as on the card and review steps (the cancel below).
  app.post('/hosted/sessions/:sessionId/cancel', { schema: { hide: true } }, async (request, reply) =>
    sessionForm(request, reply, async (sessionId) =>
      finished(request, reply, await hosted.cancelSessionCheckout(sessionId)),
    ),
  );

  // --- Card step ----------------------------------------------------------------------------------------------
  const renderCardStep = (
    reply: FastifyReply,
    ctx: { payment: Payment; merchantName: string },
    lang: Language,
    t: string,
    errors: { field: string; message: string }[],
    values: CardFormValues,
  ) => {
    const tt = MESSAGES[lang];
    const { payment } = ctx;
    return page(
      reply,
      lang,
      `${tt.cardStepTitle} – ${ctx.merchantName}`,
      <CardStepPage
        t={tt}
        lang={lang}
        merchantName={ctx.merchantName}
        currency={payment.currency}
        value={payment.value}
        action={`/hosted/payments/${payment.payId}/card`}
        cancelAction={cancelUrl(payment.payId)}
        quoteUrl={`/hosted/payments/${payment.payId}/quote`}
        linkToken={t}
        csrf={links.csrf(payment.payId, t)}
        errors={errors}
        values={values}
        saveCard={saveCardPurpose(payment)}
      />,
      errors.length > 0 ? 422 : 200,
      '/hosted/assets/card-step.js',
      { name: ctx.merchantName, texts: merchantTextsOf(payment.informational), urls: payment.urls },
    );
  };

  app.get('/hosted/payments/:payId', { schema: { hide: true } }, async (request, reply) => {
    const g = await gate(request, reply, { form: false });
    if (!g) return reply;
    return renderCardStep(
      reply,
      { payment: g.payment, merchantName: g.merchant.name },
      g.lang,
      g.t,
      [],
      prefilledValues(g.payment),
    );
  });

  app.post('/hosted/payments/:payId/card', { schema: { hide: true } }, async (request, reply) => {
    const g = await gate(request, reply, { form: true });
    if (!g) return reply;
    const form = formFields(request.body);
    const result = await hosted.takeCard(g.merchant, g.payment, {
      number: form.number ?? '',
      expiryDate: expiryFromForm(form.expiry),
      securityCode: form.securityCode ?? '',
      cardholderName: form.cardholderName,
    });
    if (!result.ok && result.notWaiting) {
      // Pay was pressed meanwhile (another tab): the confirmed card stays; show where the payment is now.
      if (isWaitingForCard(result.payment)) return reply.redirect(paymentUrl(g.payment.payId, g.t, '/review'), 303);
      return movedOn(request, reply, result.payment);
    }
    if (!result.ok) {
      const values = { expiry: form.expiry, cardholderName: form.cardholderName };
      return renderCardStep(
        reply,
        { payment: g.payment, merchantName: g.merchant.name },
        g.lang,
        g.t,
        result.errors,
        values,
      );
    }
    return reply.redirect(paymentUrl(g.payment.payId, g.t, '/review'), 303);
  });

  // Live preview for card-step.js: brand and surcharge of the first digits. Same link and CSRF checks as the forms.
  app.post('/hosted/payments/:payId/quote', { schema: { hide: true } }, async (request, reply) => {
    const body = formFields(request.body);
    const payId = pathParam(request, 'payId');
    const t = body.t ?? '';
    if (!links.verify('payment', payId, t, clock.now()) || !links.verifyCsrf(payId, t, body.csrf)) {
      return reply.status(403).send({ error: 'invalid link' });
    }
    const prefix = (body.bin ?? '').replace(/\D/g, '').slice(0, 8);
    const { payment, merchant } = await hosted.paymentForPage(payId);
    // Once Pay was pressed the card step is over: no quote for another card (the confirmed one is being paid).
    if (!isWaitingForCard(payment) || payment.surchargeConsent !== undefined) {
      return reply.status(409).header('cache-control', 'no-store').send({ error: 'the card step is over' });
    }
    const quote = await hosted.quote(merchant, payment, prefix);
    const lang = languageOf(request, payment.language);
    return reply.header('cache-control', 'no-store').send({
      brand: quote.brand ? BRAND_LABEL[quote.brand] : null,
      surchargeValue: quote.surchargeValue,
      totalValue: quote.totalValue,
      currency: quote.currency,
      fee: quote.surchargeValue > 0 ? formatMoney(quote.surchargeValue, quote.currency, lang) : null,
      total: formatMoney(quote.totalValue, quote.currency, lang),
    });
  });

  // Where Kassa's 3-D Secure pages send a hosted payment page try that ended declined (see sessionAwareReturnUrl).
  app.get('/hosted/payments/:payId/result', { schema: { hide: true } }, async (request, reply) => {
    const g = await gate(request, reply, { form: false, waiting: false });
    if (!g) return reply;
    return finished(request, reply, g.payment);
  });

  // --- Review step ----------------------------------------------------------------------------------------------
  const renderReview = (
    reply: FastifyReply,
    payment: Payment,
    merchantName: string,
    lang: Language,
    t: string,
    notice?: string,
  ) => {
    const tt = MESSAGES[lang];
    const card = payment.card;
    const cardLabel = card ? `${BRAND_LABEL[card.brand]} •••• ${card.last4}` : '';
    return page(
      reply,
      lang,
      `${tt.reviewTitle} – ${merchantName}`,
      <ReviewPage
        t={tt}
        lang={lang}
        merchantName={merchantName}
        currency={payment.currency}
        value={payment.value}
        surchargeValue={payment.surcharge.value}
        surchargeReason={payment.surcharge.status === 'APPLIED' ? payment.surcharge.reason : undefined}
        cardLabel={cardLabel}
        confirmAction={`/hosted/payments/${payment.payId}/confirm`}
        cancelAction={cancelUrl(payment.payId)}
        changeCardHref={paymentUrl(payment.payId, t)}
        linkToken={t}
        csrf={links.csrf(payment.payId, t)}
        reviewDigest={reviewDigest(payment)}
        notice={notice}
      />,
      notice ? 409 : 200,
      '/hosted/assets/review-step.js',
      { name: merchantName, texts: merchantTextsOf(payment.informational), urls: payment.urls },
    );
  };

  app.get('/hosted/payments/:payId/review', { schema: { hide: true } }, async (request, reply) => {
    const g = await gate(request, reply, { form: false });
    if (!g) return reply;
    if (!g.payment.card) return reply.redirect(paymentUrl(g.payment.payId, g.t), 303);
    return renderReview(reply, g.payment, g.merchant.name, g.lang, g.t);
  });

  app.post('/hosted/payments/:payId/confirm', { schema: { hide: true } }, async (request, reply) => {
    const g = await gate(request, reply, { form: true });
    if (!g) return reply;
    if (!g.payment.card) return reply.redirect(paymentUrl(g.payment.payId, g.t), 303);
    let payment: Payment;
    const form = formFields(request.body);
    /** The review again with "the amounts have changed", for the card and quote now stored; nothing is authorized. */
    const reviewAgain = async () => {
      const { payment: current } = await hosted.paymentForPage(g.payment.payId);
      if (!isWaitingForCard(current)) return movedOn(request, reply, current);
      if (!current.card) return reply.redirect(paymentUrl(current.payId, g.t), 303);
      return renderReview(reply, current, g.merchant.name, g.lang, g.t, MESSAGES[g.lang].quoteChanged);
    };
    try {
      payment = await hosted.recordConsent(g.payment, {
        totalValue: Number(form.totalValue),
        reviewDigest: form.review ?? '',
        language: g.lang,
      });
    } catch (error) {
      if (error instanceof KassaError && error.code === 'QUOTE_CHANGED') return reviewAgain();
      throw error;
    }
    const outcome = await hosted.confirm(g.merchant, payment, browserInfoOf(request, g.lang));
    if (outcome.kind === 'REDIRECT') return reply.redirect(outcome.url, 303);
    if (outcome.kind === 'CARD_GONE') return reply.redirect(paymentUrl(payment.payId, g.t), 303);
    if (outcome.kind === 'CARD_CHANGED') return reviewAgain();
    return finished(request, reply, outcome.payment);
  });

  // The cardholder's cancel on the card or review step (CancelForm): FAILED 20040002, on to urls.cancel with PayID.
  app.post('/hosted/payments/:payId/cancel', { schema: { hide: true } }, async (request, reply) => {
    const g = await gate(request, reply, { form: true });
    if (!g) return reply;
    return finished(request, reply, await hosted.cancel(g.payment));
  });

  // --- The demo shop's return page (the sandbox `demo` merchant's checkout printed at start-up) -----------------
  app.get('/hosted/demo/:outcome', { schema: { hide: true } }, async (request, reply) => {
    const outcome = pathParam(request, 'outcome');
    const payId = formFields(request.query).PayID ?? '';
    if ((outcome !== 'return' && outcome !== 'cancel') || !isHexId(payId)) {
      return message(reply, 'en', 'notFound', 404);
    }
    const title = outcome === 'return' ? 'Back at the demo shop' : 'Payment cancelled — back at the demo shop';
    return page(
      reply,
      'en',
      title,
      <MessagePage title={title} message={`Kassa sent the browser back with PayID ${payId}.`}>
        <p>A real shop now reads the binding result server-side:</p>
        <p>
          <code>GET /api/v1/payments/getByPayId/{payId}</code>
        </p>
      </MessagePage>,
    );
  });

  // --- Scripts (same origin, served with the nonce'd <script src>) ----------------------------------------------
  for (const name of ['card-step.js', 'review-step.js']) {
    const source = await import('node:fs/promises').then((fs) =>
      fs.readFile(new URL(`./assets/${name}`, import.meta.url), 'utf8'),
    );
    app.get(`/hosted/assets/${name}`, { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(source),
    );
  }
}

/**
 * Creation of a DIRECT card payment and the reads of any payment (getByPayId, getByTransId). Creation runs validate →
 * persist PENDING → 3-D Secure and authorization (authorize-payment.ts) or, for `browserAuthentication: REDIRECT`,
 * the browser steps (three-ds-browser-steps.ts).
 */

import type { StoredCredentialPlan } from '../cards/stored-credential-plan.js';
import { type FieldError, KassaError, validationError } from '../errors/error-catalogue.js';
import type { Merchant } from '../merchants/merchant.js';
import { isCurrencyWithMinorUnits } from '../merchants/merchant-service.js';
import { checkMerchantUrl } from '../merchants/merchant-url.js';
import type { Clock } from '../ports/clock.js';
import { isHexId } from '../ports/id-generator.js';
import { sdkEphemPubKeyProblem } from '../threeds/sdk-ephem-pub-key.js';
import { authenticateAndAuthorize, authorizeAtAcquirer } from './authorize-payment.js';
import { detectBrand, expiryProblem, passesLuhn, summarizeCard } from './card-checks.js';
import { holdsCardNumber } from './card-number-mask.js';
import { delayedCaptureProblem } from './delayed-capture.js';
import { insertPendingDirectPayment } from './insert-direct-payment.js';
import type { Payment } from './payment.js';
import { deviceChannelOf } from './payment.js';
import type { PaymentServiceDeps } from './payment-deps.js';
import type { CreatePaymentCommand } from './payment-request.js';
import { createUnusableStoredCardPayment, planDirectStoredCredential } from './stored-credential-payment.js';
import { browserRedirectOf, startBrowserAuthentication } from './three-ds-browser-steps.js';

/**
 * Creates a DIRECT (server-to-server) card payment: 3-D Secure as 3DS Server, then authorization.
 * A decline is a FAILED payment, not an error.
 * @throws KassaError VALIDATION_FAILED (card, amount, urls, an SDK key off its curve), CARD_BRAND_NOT_SUPPORTED,
 * TRANS_ID_IN_USE.
 */
export async function createDirectPayment(
  deps: PaymentServiceDeps,
  merchant: Merchant,
  cmd: CreatePaymentCommand,
): Promise<Payment> {
  const { clock, bins } = deps;
  if (!cmd.card) throw validationError([{ field: 'paymentMethods.card', message: 'is required for DIRECT payments' }]);
  const plan = await planDirectStoredCredential(deps, merchant, cmd);
  // A payment with a stored card uses the vault's card: the pseudo card number is not a PAN (it fails the Luhn
  // check on purpose), its expiry is the stored one (an expired stored card is declined by the network with 54,
  // not refused here), and a merchant-initiated payment has no browser to authenticate.
  const card = plan.kind === 'SUBSEQUENT' ? plan.card : cmd.card;
  checkCommand(clock, merchant, cmd, plan);
  if (plan.kind === 'UNUSABLE') return createUnusableStoredCardPayment(deps, merchant, cmd, plan);

  const bin = bins.lookup(card.number);
  const brand = bin?.brand ?? detectBrand(card.number);
  if (!brand) {
    throw new KassaError('CARD_BRAND_NOT_SUPPORTED', 'paymentMethods.card.number: only Visa and Mastercard', {
      errors: [{ field: 'paymentMethods.card.number', message: 'only Visa and Mastercard cards are accepted' }],
    });
  }

  // An initial stored-credential payment keeps its card (encrypted) from its intent: if the acquirer's answer is
  // lost, AuthorizationRecovery stores the card of the approval it finds (insert-direct-payment.ts).
  const payment = await insertPendingDirectPayment(
    deps,
    merchant,
    cmd,
    {
      ...summarizeCard(card, brand, bin, deps.dataKey),
      ...(plan.kind === 'SUBSEQUENT' && { pseudoCardNumber: plan.stored.pseudoCardNumber }),
    },
    plan.kind === 'INITIAL' ? card : undefined,
  );

  // Mail and telephone orders are out of scope of SCA (EBA Opinion on the implementation of the PSD2 RTS, June 2018;
  // paygate-v2-wire.md §2 `channel: MOTO`): no cardholder browser or app to authenticate, so no 3-D Secure.
  if (cmd.channel === 'MOTO') return authorizeAtAcquirer(deps, merchant, payment, card);
  // Paygate `threeDsPolicy.skip` THIS_TRANSACTION / OUT_OF_SCOPE: the merchant takes the liability, no 3-D Secure.
  if (skipsThreeDS(cmd)) return authorizeAtAcquirer(deps, merchant, payment, card);
  // Merchant-initiated: out of scope of SCA (PSD2 RTS art. 13/14, the schemes' MIT frameworks), no 3-D Secure; the
  // network needs the initial payment's schemeReferenceId instead.
  if (plan.kind === 'SUBSEQUENT' && plan.use === 'MIT')
    return authorizeAtAcquirer(deps, merchant, payment, card, plan.indicator);
  if (cmd.browserAuthentication === 'REDIRECT' && deviceChannelOf(cmd.channel) === 'BROWSER') {
    return startBrowserAuthentication(deps, merchant, payment, card, cmd);
  }
  return authenticateAndAuthorize(deps, merchant, payment, card, cmd);
}

/**
 * `read`: the lookup's answer when the caller has it already (read with the credentials check; issue 12), which is
 * then not read again.
 * @throws KassaError PAYMENT_NOT_FOUND for a missing payment and for another merchant's payment alike.
 */
export async function getByPayId(
  deps: PaymentServiceDeps,
  merchantId: string,
  payId: string,
  read?: { payment: Payment | undefined },
): Promise<Payment> {
  const p = !isHexId(payId)
    ? undefined
    : read !== undefined
      ? read.payment
      : await deps.store.payments.findByPayId(merchantId, payId);
  if (!p) throw new KassaError('PAYMENT_NOT_FOUND', `no payment ${payId}`);
  return withRedirect(deps, p);
}

/**
 * The latest payment with this transId (DESIGN.md §4); `read`, when given, is what
 * `store.payments.findLatestByTransId(merchantId, transId)` answered, read by the caller. @throws KassaError
 * PAYMENT_NOT_FOUND.
 */
export async function getByTransId(
  deps: PaymentServiceDeps,
  merchantId: string,
  transId: string,
  read?: { payment: Payment | undefined },
): Promise<Payment> {
  const p = read !== undefined ? read.payment : await deps.store.payments.findLatestByTransId(merchantId, transId);
  if (!p) throw new KassaError('PAYMENT_NOT_FOUND', `no payment with transId ${transId}`);
  return withRedirect(deps, p);
}

/** A payment as the API shows it: with `redirectHref` while it waits for the cardholder's browser. */
async function withRedirect(deps: PaymentServiceDeps, payment: Payment): Promise<Payment> {
  const redirectHref = await browserRedirectOf(deps, payment);
  return redirectHref === undefined ? payment : { ...payment, redirectHref };
}

/** Rules beyond the request schema: currency, card number, expiry, URLs (DESIGN.md §4), the SDK's key on its curve. */
function checkCommand(clock: Clock, merchant: Merchant, cmd: CreatePaymentCommand, plan: StoredCredentialPlan): void {
  const errors: FieldError[] = [];
  if (!isCurrencyWithMinorUnits(cmd.amount.currency)) {
    errors.push({ field: 'amount.currency', message: 'must be an ISO 4217 currency code with minor units' });
  }
  const withStoredCard = plan.kind === 'SUBSEQUENT' || plan.kind === 'UNUSABLE';
  const card = withStoredCard ? undefined : cmd.card;
  if (card) {
    if (!passesLuhn(card.number)) {
      errors.push({ field: 'paymentMethods.card.number', message: 'is not a valid card number (Luhn check failed)' });
    }
    const expiry = expiryProblem(card.expiryDate, clock.now());
    if (expiry === 'INVALID') {
      errors.push({ field: 'paymentMethods.card.expiryDate', message: 'must be YYYYMM with a month 01–12' });
    } else if (expiry === 'EXPIRED') {
      errors.push({ field: 'paymentMethods.card.expiryDate', message: 'the card has expired' });
    }
  }
  if (cmd.card?.cardholderName !== undefined && holdsCardNumber(cmd.card.cardholderName)) {
    errors.push({ field: 'paymentMethods.card.cardHolderName', message: 'must not hold a card number' });
  }
  if (cmd.browserAuthentication === 'REDIRECT' && deviceChannelOf(cmd.channel) !== 'BROWSER') {
    errors.push({
      field: 'paymentMethods.card.threeDsPolicy.browserAuthentication',
      message: 'REDIRECT applies to browser channels (ECOM, PAYBYLINK, POS) only',
    });
  }
  if (cmd.channel === 'APP' && !cmd.sdkInfo) {
    errors.push({ field: 'paymentMethods.card.threeDsPolicy.sdkInfo', message: 'is required when channel is APP' });
  }
  // Checked here, before the payment is stored, rather than where the AReq is built (after the insert).
  const keyProblem = cmd.sdkInfo && sdkEphemPubKeyProblem(cmd.sdkInfo.sdkEphemPubKey);
  if (keyProblem) {
    errors.push({ field: 'paymentMethods.card.threeDsPolicy.sdkInfo.sdkEphemPubKey', message: keyProblem });
  }
  const merchantInitiated = (plan.kind === 'SUBSEQUENT' && plan.use === 'MIT') || plan.kind === 'UNUSABLE';
  if (
    deviceChannelOf(cmd.channel) === 'BROWSER' &&
    cmd.channel !== 'MOTO' &&
    !skipsThreeDS(cmd) &&
    cmd.integrationType === 'DIRECT' &&
    !cmd.browserInfo &&
    !merchantInitiated
  ) {
    errors.push({ field: 'browserInfo', message: 'is required for a DIRECT browser payment (3-D Secure needs it)' });
  }
  for (const [name, url] of Object.entries(cmd.urls ?? {})) {
    const problem = checkMerchantUrl(url, merchant.sandbox, name === 'webhook' ? 'webhook' : 'browser');
    if (problem) errors.push({ field: `urls.${name}`, message: problem });
  }
  errors.push(...delayedCaptureProblem(cmd.captureMethod, cmd.delayedHours));
  if (errors.length > 0) throw validationError(errors);
}

/** Whether the merchant skips 3-D Secure for this payment (Paygate `threeDsPolicy.skip` THIS_TRANSACTION, OUT_OF_SCOPE). */
function skipsThreeDS(cmd: CreatePaymentCommand): boolean {
  return cmd.threeDsPolicy?.skip === 'THIS_TRANSACTION' || cmd.threeDsPolicy?.skip === 'OUT_OF_SCOPE';
}

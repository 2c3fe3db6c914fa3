/**
 * Stored credentials inside payment creation and authorization (docs/stored-credentials.md): the plan of a DIRECT
 * request with `credentialOnFile` or a pseudo card number, the FAILED payment of an unusable stored card, the
 * stored-credential indicator sent to the acquirer, and storing the card once an initial payment is approved.
 */
import { isPseudoCardNumber } from '../cards/pseudo-card-number.js';
import { planStoredCredential, type StoredCredentialPlan } from '../cards/stored-credential-plan.js';
import { validationError } from '../errors/error-catalogue.js';
import type { Merchant } from '../merchants/merchant.js';
import type { StoredCredentialIndicator } from '../ports/acquirer.js';
import type { CardBrand } from '../ports/bin-table.js';
import { finishPayment } from './finish-payment.js';
import { insertPendingDirectPayment } from './insert-direct-payment.js';
import type { Payment } from './payment.js';
import type { PaymentServiceDeps } from './payment-deps.js';
import type { CardInput, CreatePaymentCommand } from './payment-request.js';

/** The stored-credential plan of a DIRECT create request (domain/cards/stored-credential-plan.ts). */
export async function planDirectStoredCredential(
  deps: PaymentServiceDeps,
  merchant: Merchant,
  cmd: CreatePaymentCommand,
): Promise<StoredCredentialPlan> {
  const storedCards = deps.storedCards;
  const cof = cmd.informational?.credentialOnFile;
  if (
    storedCards === undefined ||
    (cof === undefined && (cmd.card === undefined || !isPseudoCardNumber(cmd.card.number)))
  ) {
    return { kind: 'NONE' };
  }
  const result = await planStoredCredential(
    {
      merchantId: merchant.merchantId,
      integrationType: cmd.integrationType,
      credentialOnFile: cof,
      card: cmd.card,
      hasDeviceData: cmd.browserInfo !== undefined || cmd.sdkInfo !== undefined,
      now: deps.clock.now(),
    },
    (merchantId, pseudo) => storedCards.lookup(merchantId, pseudo),
  );
  if (!result.ok) throw validationError(result.errors);
  return result.plan;
}

/**
 * A payment with a pseudo card number this merchant cannot use (unknown, another merchant's, deleted): created
 * FAILED with 20050001 or 20050002 and its payment.failed event, without calling the acquirer.
 * @throws KassaError TRANS_ID_IN_USE.
 */
export async function createUnusableStoredCardPayment(
  deps: PaymentServiceDeps,
  merchant: Merchant,
  cmd: CreatePaymentCommand,
  plan: Extract<StoredCredentialPlan, { kind: 'UNUSABLE' }>,
): Promise<Payment> {
  const stored = plan.stored;
  // A deleted card is still described (brand, last digits); an unknown number describes nothing.
  const payment = await insertPendingDirectPayment(
    deps,
    merchant,
    cmd,
    stored && {
      brand: stored.brand as CardBrand,
      bin: stored.bin,
      last4: stored.last4,
      expiryDate: stored.expiryDate,
      fingerprint: stored.fingerprint,
      pseudoCardNumber: stored.pseudoCardNumber,
    },
  );
  return finishPayment(deps, merchant, payment, plan.responseCode);
}

/**
 * The stored-credential indicator of a cardholder-initiated payment with `credentialOnFile` (the initial payment,
 * or a one-click payment with a stored card), read from the payment itself so that it survives 3-D Secure steps.
 * Merchant-initiated payments pass theirs explicitly (with the initial schemeReferenceId).
 */
export function cardholderIndicator(payment: Payment): StoredCredentialIndicator | undefined {
  const cof = payment.informational?.credentialOnFile;
  if (cof === undefined) return undefined;
  return { type: cof.type, initiator: 'CARDHOLDER', sequence: cof.initialPayment === true ? 'INITIAL' : 'SUBSEQUENT' };
}

/**
 * After an approval: records the network's schemeReferenceId on the payment and, for an initial
 * `credentialOnFile` payment, stores the card in the vault and records its pseudo card number. A failure to store,
 * or an initial payment whose `card` is no longer known (undefined: AuthorizationRecovery found its vaulted card
 * expired), leaves the (approved) payment without a pseudo card number and is reported as unexpected; it never turns
 * the approval into a failure (the money moved).
 */
export async function storeCredential(
  deps: Pick<PaymentServiceDeps, 'storedCards' | 'onUnexpectedError'>,
  merchant: Pick<Merchant, 'merchantId'>,
  payment: Payment,
  card: CardInput | undefined,
  indicator: StoredCredentialIndicator | undefined,
  schemeReferenceId: string | undefined,
): Promise<Payment> {
  if (payment.card === undefined) return payment;
  let summary = { ...payment.card, ...(schemeReferenceId !== undefined && { schemeReferenceId }) };
  const cof = payment.informational?.credentialOnFile;
  if (indicator?.sequence === 'INITIAL' && cof !== undefined && deps.storedCards !== undefined) {
    if (card === undefined) {
      deps.onUnexpectedError?.(payment.payId, 'acquirer', new Error('approved initial payment: its card is gone'));
      return { ...payment, card: summary };
    }
    try {
      const stored = await deps.storedCards.store({
        merchantId: merchant.merchantId,
        card: { number: card.number, expiryDate: card.expiryDate, cardholderName: card.cardholderName },
        brand: payment.card.brand,
        bin: payment.card.bin,
        credentialOnFile: cof,
        schemeReferenceId,
        initialPayId: payment.payId,
      });
      summary = { ...summary, pseudoCardNumber: stored.pseudoCardNumber };
    } catch (error) {
      deps.onUnexpectedError?.(payment.payId, 'acquirer', error);
    }
  }
  return { ...payment, card: summary };
}

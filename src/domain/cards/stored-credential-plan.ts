import type { FieldError } from '../errors/error-catalogue.js';
import type { CardInput } from '../payments/payment-request.js';
import type { StoredCredentialIndicator } from '../ports/acquirer.js';
import type { StoredCard } from '../ports/stored-card-vault.js';
import { type CredentialOnFile, classifyCredentialOnFile } from './credential-on-file.js';
import { isPseudoCardNumber } from './pseudo-card-number.js';
import type { StoredCardLookup } from './stored-card-service.js';

/**
 * What a create request with (or without) `credentialOnFile` means for the payment:
 * - NONE: an ordinary payment.
 * - INITIAL: a customer-initiated payment with the cardholder's card, full 3-D Secure (EMV stored-credential
 *   fields); on approval the card is stored and the answer carries its pseudoCardNumber.
 * - SUBSEQUENT: a payment with a stored card. `use` MIT: no 3-D Secure (out of scope of SCA), the initial payment's
 *   schemeReferenceId goes to the acquirer. `use` ONE_CLICK: 3-D Secure with the cardholder's browser or app, no
 *   security code.
 * - UNUSABLE: the pseudo card number is unknown to this merchant (20050001) or the card was deleted (20050002): the
 *   payment is created FAILED with that response code, the acquirer is never called.
 */
export type StoredCredentialPlan =
  | { kind: 'NONE' }
  | { kind: 'INITIAL'; credentialOnFile: CredentialOnFile; indicator: StoredCredentialIndicator }
  | {
      kind: 'SUBSEQUENT';
      use: 'MIT' | 'ONE_CLICK';
      credentialOnFile: CredentialOnFile;
      stored: StoredCard;
      /** The stored card: number and expiry from the vault, the cardholder name as the request gives it. */
      card: CardInput;
      indicator: StoredCredentialIndicator;
    }
  | {
      kind: 'UNUSABLE';
      credentialOnFile: CredentialOnFile;
      pseudoCardNumber: string;
      responseCode: '20050001' | '20050002';
      stored?: StoredCard;
    };

/** The parts of a create request the plan reads. */
export interface StoredCredentialRequest {
  merchantId: string;
  integrationType: 'DIRECT' | 'HOSTED';
  credentialOnFile?: CredentialOnFile;
  /** `paymentMethods.card` of a DIRECT payment. */
  card?: CardInput;
  /** Whether the request has `browserInfo` (browser) or `sdkInfo` (app): what 3-D Secure of a one-click CIT needs. */
  hasDeviceData: boolean;
  /** The payment's time (the agreement's end date is judged against its UTC date). */
  now: Date;
}

/**
 * Decides the plan of a create request (see StoredCredentialPlan).
 * @param lookup finds a stored card of the merchant (StoredCardService.lookup).
 * @returns the plan, or the request's field errors (400 VALIDATION_FAILED): a subsequent payment must be DIRECT
 * and name a pseudo card number; an initial one must carry the real card (or be HOSTED); a one-click CIT needs
 * browserInfo or sdkInfo; a pseudo card number needs credentialOnFile.
 */
export async function planStoredCredential(
  request: StoredCredentialRequest,
  lookup: (merchantId: string, pseudoCardNumber: string) => Promise<StoredCardLookup>,
): Promise<{ ok: true; plan: StoredCredentialPlan } | { ok: false; errors: FieldError[] }> {
  const cof = request.credentialOnFile;
  const number = request.card?.number;
  const pseudo = number !== undefined && isPseudoCardNumber(number);
  if (cof === undefined) {
    if (pseudo) {
      return fail('credentialOnFile', 'a payment with a pseudo card number must say how the stored card is used');
    }
    return { ok: true, plan: { kind: 'NONE' } };
  }
  const use = classifyCredentialOnFile(cof, request.now);
  if (!use.ok) return { ok: false, errors: use.problems };
  if (use.use === 'INITIAL') {
    if (pseudo) {
      return fail('paymentMethods.card.number', 'an initial payment stores a card: send the card number itself');
    }
    return {
      ok: true,
      plan: {
        kind: 'INITIAL',
        credentialOnFile: cof,
        indicator: { type: cof.type, initiator: 'CARDHOLDER', sequence: 'INITIAL' },
      },
    };
  }
  if (request.integrationType !== 'DIRECT') {
    return fail('paymentMethods.integrationType', 'a payment with a stored card is DIRECT');
  }
  if (number === undefined || !pseudo) {
    return fail('paymentMethods.card.number', 'a payment with a stored card sends its pseudo card number');
  }
  if (use.use === 'ONE_CLICK' && !request.hasDeviceData) {
    return fail('browserInfo', 'a one-click payment authenticates the cardholder: send browserInfo (or sdkInfo)');
  }
  const found = await lookup(request.merchantId, number);
  if (found.kind !== 'ACTIVE') {
    return {
      ok: true,
      plan: {
        kind: 'UNUSABLE',
        credentialOnFile: cof,
        pseudoCardNumber: number,
        responseCode: found.kind === 'DELETED' ? '20050002' : '20050001',
        ...(found.kind === 'DELETED' && { stored: found.stored }),
      },
    };
  }
  const cardholderName = request.card?.cardholderName ?? found.card.cardholderName;
  const merchantInitiated = use.use === 'MIT';
  return {
    ok: true,
    plan: {
      kind: 'SUBSEQUENT',
      use: use.use,
      credentialOnFile: cof,
      stored: found.stored,
      card: {
        number: found.card.number,
        expiryDate: found.card.expiryDate,
        ...(cardholderName !== undefined && { cardholderName }),
      },
      indicator: {
        type: cof.type,
        initiator: merchantInitiated ? 'MERCHANT' : 'CARDHOLDER',
        sequence: 'SUBSEQUENT',
        ...(found.stored.schemeReferenceId !== undefined && { schemeReferenceId: found.stored.schemeReferenceId }),
      },
    },
  };
}

function fail(field: string, message: string): { ok: false; errors: FieldError[] } {
  return { ok: false, errors: [{ field, message }] };
}

import type { CredentialOnFile } from '../cards/credential-on-file.js';

/**
 * EMVCo threeDSRequestorAuthenticationInd (EMV 3DS Protocol and Core Functions Specification, table A.1): why the
 * 3DS Requestor authenticates. 01 payment transaction, 02 recurring transaction, 03 instalment transaction,
 * 04 add card, 05 maintain card, 06 cardholder verification as part of EMV token ID&V.
 */
export type ThreeDSRequestorAuthenticationInd = '01' | '02' | '03' | '04' | '05' | '06';

/** The AReq fields that describe a stored credential (EMVCo names and formats). */
export interface StoredCredentialAReqFields {
  threeDSRequestorAuthenticationInd: ThreeDSRequestorAuthenticationInd;
  /** YYYYMMDD: no further authorisations after this date. Sent with indicator 02 and 03. */
  recurringExpiry?: string;
  /** The minimum number of days between authorisations, 1–9999 as a string without leading zeros. 02 and 03. */
  recurringFrequency?: string;
  /** The maximum number of authorisations of an instalment plan, 2–999. Sent with indicator 03. */
  purchaseInstalData?: string;
}

/**
 * Paygate's frequency words → EMVCo recurringFrequency, the *minimum* number of days between two authorisations
 * (so a calendar month is 28 days, two months 59, a quarter 89, a year 365). Digits are taken as days.
 */
const FREQUENCY_DAYS: Readonly<Record<string, number>> = {
  DAILY: 1,
  WEEKLY: 7,
  BIWEEKLY: 14,
  MONTHLY: 28,
  BIMONTHLY: 59,
  QUARTERLY: 89,
  HALFYEARLY: 181,
  YEARLY: 365,
};

function frequencyDays(frequency: string | undefined): string | undefined {
  if (frequency === undefined) return undefined;
  const word = frequency.trim().toUpperCase().replace(/[-_ ]/g, '');
  const days = /^\d{1,4}$/.test(word) ? Number(word) : FREQUENCY_DAYS[word];
  return days !== undefined && days >= 1 ? String(days) : undefined;
}

/** YYYY-MM-DD → YYYYMMDD; anything else → undefined. */
function compactDate(date: string | undefined): string | undefined {
  return date !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(date) ? date.replaceAll('-', '') : undefined;
}

/** The last day of a card's expiry month (YYYYMM) as YYYYMMDD: cards are valid through that day. */
function cardExpiryDay(expiryDate: string): string {
  const year = Number(expiryDate.slice(0, 4));
  const month = Number(expiryDate.slice(4, 6));
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${expiryDate}${String(lastDay).padStart(2, '0')}`;
}

/**
 * The stored-credential fields of the AReq of a customer-initiated payment (EMV 3DS 2.1.0–2.3.1, AReq):
 * - no credentialOnFile, or a one-click payment with a stored card → 01 payment transaction;
 * - initial RECURRING → 02 with recurringExpiry and recurringFrequency;
 * - initial INSTALLMENTS → 03 with recurringExpiry, recurringFrequency and purchaseInstalData (installments.total);
 * - initial UNSCHEDULED (a card saved for later one-click or merchant-initiated use) → 04 add card.
 * EMVCo requires recurringExpiry and recurringFrequency with 02 and 03. Where the merchant gives them
 * (`recurring.expiryDate` / `installments.expiryDate`, `…frequency`) they are sent as given; otherwise the expiry is
 * the card's last valid day (the credential cannot be used beyond it without a new card) and the frequency is 1 day
 * (the least restrictive value, true of every schedule).
 * Merchant-initiated payments send no AReq at all (out of scope of SCA).
 * @param cardExpiryDate the card's expiry, YYYYMM.
 */
export function storedCredentialAReqFields(
  cof: CredentialOnFile | undefined,
  cardExpiryDate: string,
): StoredCredentialAReqFields {
  if (cof === undefined || cof.initialPayment !== true) return { threeDSRequestorAuthenticationInd: '01' };
  if (cof.type === 'UNSCHEDULED') return { threeDSRequestorAuthenticationInd: '04' };
  const plan = cof.type === 'RECURRING' ? cof.recurring : cof.installments;
  const fields: StoredCredentialAReqFields = {
    threeDSRequestorAuthenticationInd: cof.type === 'RECURRING' ? '02' : '03',
    recurringExpiry: compactDate(plan?.expiryDate) ?? cardExpiryDay(cardExpiryDate),
    recurringFrequency: frequencyDays(plan?.frequency) ?? '1',
  };
  const total = cof.installments?.total;
  if (cof.type === 'INSTALLMENTS' && total !== undefined && total >= 2) {
    fields.purchaseInstalData = String(Math.min(total, 999));
  }
  return fields;
}

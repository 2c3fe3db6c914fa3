/**
 * `credentialOnFile` of a create request (spec/paygate-v2-wire.md §2): saved cards, one-click and subscriptions.
 * The domain's own shape of the wire member, so that the payment logic does not depend on how the wire schema is
 * written. Dates are ISO 8601 calendar dates (YYYY-MM-DD).
 */
export interface CredentialOnFile {
  type: 'RECURRING' | 'UNSCHEDULED' | 'INSTALLMENTS';
  /** true: the first, customer-initiated payment that stores the card. */
  initialPayment?: boolean;
  unscheduled?: { subType: 'CIT' | 'MIT' };
  /** Paygate: `useCase` FIXED | FLEXIBLE_AMOUNT | FLEXIBLE_FREQUENCY; `frequency` DAILY | WEEKLY | MONTHLY | YEARLY. */
  recurring?: { useCase?: string; frequency?: string; startDate?: string; expiryDate?: string };
  /** `total` number of instalments; `curIdx` this one's index (1-based); `purchaseAmount` minor units. */
  installments?: {
    total?: number;
    curIdx?: number;
    purchaseAmount?: number;
    frequency?: string;
    expiryDate?: string;
  };
}

/**
 * What a payment with `credentialOnFile` does with the stored credential:
 * - INITIAL: the customer-initiated payment that stores the card (full 3-D Secure; card data from the cardholder).
 * - MIT: a merchant-initiated payment with the stored card (RECURRING or INSTALLMENTS follow-ons, UNSCHEDULED with
 *   subType MIT): no cardholder, no 3-D Secure (out of scope of SCA, PSD2 RTS art. 13/14 and the schemes' MIT
 *   frameworks), carries the initial payment's schemeReferenceId.
 * - ONE_CLICK: a customer-initiated payment with the stored card (UNSCHEDULED subType CIT): 3-D Secure with the
 *   cardholder's browser, no security code.
 */
export type CredentialUse = 'INITIAL' | 'MIT' | 'ONE_CLICK';

/** A field of `credentialOnFile` that makes the request unusable, named by its JSON path. */
export interface CredentialOnFileProblem {
  field: string;
  message: string;
}

/**
 * The agreement's terms a payment must stay inside, whatever its use:
 * - `installments.curIdx` at most `installments.total` when both are given (the instalment's index within the
 *   agreed number; EMV 3DS purchaseInstalData is "the maximum number of authorisations permitted for instalment
 *   payments");
 * - `recurring.expiryDate` and `installments.expiryDate` not before today, UTC (EMV 3DS recurringExpiry: "date after
 *   which no further authorisations shall be performed").
 * Kassa keeps no schedule of its own: later payments are judged by what they carry (docs/stored-credentials.md).
 */
function agreementProblems(cof: CredentialOnFile, today: string): CredentialOnFileProblem[] {
  const problems: CredentialOnFileProblem[] = [];
  const { total, curIdx } = cof.installments ?? {};
  if (total !== undefined && curIdx !== undefined && curIdx > total) {
    problems.push({
      field: 'credentialOnFile.installments.curIdx',
      message: `instalment ${curIdx} is past the agreed number of instalments (${total})`,
    });
  }
  for (const [field, date] of [
    ['credentialOnFile.recurring.expiryDate', cof.recurring?.expiryDate],
    ['credentialOnFile.installments.expiryDate', cof.installments?.expiryDate],
  ] as const) {
    if (date !== undefined && date < today) {
      problems.push({ field, message: `the agreement ended on ${date}: no authorization may follow it` });
    }
  }
  return problems;
}

/**
 * Classifies a `credentialOnFile` (see CredentialUse) and checks the members each use needs.
 * Rules: `initialPayment: true` is INITIAL whatever the type; otherwise RECURRING and INSTALLMENTS are MIT, and
 * UNSCHEDULED needs `unscheduled.subType` (CIT → ONE_CLICK, MIT → MIT) because nothing else tells the two apart.
 * An initial INSTALLMENTS payment needs `installments.total` ≥ 2 (EMV 3DS purchaseInstalData is "greater than 1").
 * Any payment must stay inside the terms it carries (agreementProblems: the instalment's index, the end date).
 * @param now the payment's time; its UTC date is compared with the agreement's end date.
 * @returns the use, or the problems (each naming its field) when the request cannot be served.
 */
export function classifyCredentialOnFile(
  cof: CredentialOnFile,
  now: Date,
): { ok: true; use: CredentialUse } | { ok: false; problems: CredentialOnFileProblem[] } {
  const terms = agreementProblems(cof, now.toISOString().slice(0, 10));
  if (terms.length > 0) return { ok: false, problems: terms };
  if (cof.initialPayment === true) {
    if (cof.type === 'INSTALLMENTS' && (cof.installments?.total === undefined || cof.installments.total < 2)) {
      return {
        ok: false,
        problems: [
          {
            field: 'credentialOnFile.installments.total',
            message: 'an initial INSTALLMENTS payment needs the number of instalments (at least 2)',
          },
        ],
      };
    }
    return { ok: true, use: 'INITIAL' };
  }
  if (cof.type !== 'UNSCHEDULED') return { ok: true, use: 'MIT' };
  switch (cof.unscheduled?.subType) {
    case 'CIT':
      return { ok: true, use: 'ONE_CLICK' };
    case 'MIT':
      return { ok: true, use: 'MIT' };
    default:
      return {
        ok: false,
        problems: [
          {
            field: 'credentialOnFile.unscheduled.subType',
            message: 'a subsequent UNSCHEDULED payment must say CIT (cardholder present) or MIT (merchant-initiated)',
          },
        ],
      };
  }
}

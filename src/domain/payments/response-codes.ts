/**
 * Kassa's 8-digit response codes (DESIGN.md §4), Paygate style: status digit (0 ok, 2 error, 4 fatal, 6 pending)
 * + 3-digit category (000 general, 001 3-D Secure, 002 authorization, 004 hosted) + 4-digit detail.
 * docs/response-codes.md lists the same table; a test keeps them equal.
 */
export const RESPONSE_CODES = {
  '00000000': 'Transaction successful',
  '60000001': 'Payment is being processed',
  '60020001': 'Authorization outcome unknown: the acquirer did not answer; Kassa reconciles it',
  '60020002': 'Follow-up pending: the acquirer’s answer is outstanding; Kassa completes it and notifies the result',
  '60010001': 'Waiting for the cardholder to complete the 3-D Secure challenge',
  '60010002': 'Waiting for decoupled 3-D Secure authentication by the issuer',
  '60010003': "Waiting for the cardholder's browser to start 3-D Secure",
  '60040001': 'Waiting for the cardholder on the hosted payment page',
  '20010001': '3-D Secure authentication failed: not authenticated (transStatus N)',
  '20010002': '3-D Secure authentication rejected by the issuer (transStatus R)',
  '20010003': '3-D Secure challenge cancelled by the cardholder',
  '20010004': '3-D Secure authentication could not be completed',
  '20010006': '3-D Secure authentication was not completed in time',
  '20040002': 'Payment cancelled by the cardholder on the hosted page',
  '20040003': 'The cardholder did not complete the hosted payment before its link expired',
  '20040004': 'The hosted payment page session ended: its card tries are used up (card-testing protection)',
  '20040005': 'Card try refused: too many tries with this card or from this address (card-testing protection)',
  '20020005': 'Authorization declined: do not honor',
  '20020012':
    'Authorization declined: invalid transaction (a merchant-initiated payment without a valid schemeReferenceId)',
  '20020014': 'Authorization declined: invalid card number',
  '20020051': 'Authorization declined: insufficient funds',
  '20020054': 'Authorization declined: expired card',
  '20020201': 'Authorization declined: the issuer stopped the stored credential; do not retry with this card',
  '20050001': 'Stored card unknown: no stored card with this pseudo card number for this merchant',
  '20050002': 'Stored card deleted: the card was deleted from the vault; ask the cardholder for a card',
  '20029999': 'Authorization declined',
  '40020096': 'Acquirer system error',
} as const;

export type ResponseCode = keyof typeof RESPONSE_CODES;

/** The description of a response code. */
export function describeResponseCode(code: string): string {
  return (RESPONSE_CODES as Record<string, string>)[code] ?? 'Unknown response code';
}

const ACQUIRER_CODES: Record<string, ResponseCode> = {
  '00': '00000000',
  '05': '20020005',
  '12': '20020012',
  '14': '20020014',
  '51': '20020051',
  '54': '20020054',
  '96': '40020096',
  // Visa stop-payment codes: R0 stop payment order, R1 revocation of authorization order, R3 of all authorizations.
  R0: '20020201',
  R1: '20020201',
  R3: '20020201',
};

/**
 * Maps an acquirer's ISO 8583 field 39 code to Kassa's catalogue; an unknown decline maps to 20029999.
 * A Mastercard Merchant Advice Code 21 (payment cancellation: the stored credential was stopped) overrides the
 * response code, which Mastercard leaves generic (05).
 */
export function responseCodeFromAcquirer(code: string, merchantAdviceCode?: string): ResponseCode {
  if (merchantAdviceCode === '21') return '20020201';
  return ACQUIRER_CODES[code] ?? '20029999';
}

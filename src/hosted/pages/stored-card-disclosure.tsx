import { format, type Messages } from '../i18n.js';

/** What the cardholder agrees to when an initial payment stores the card (`credentialOnFile`, initialPayment). */
export interface SaveCardPurpose {
  type: 'RECURRING' | 'UNSCHEDULED' | 'INSTALLMENTS';
  /** INSTALLMENTS: the number of instalments (`installments.total`). */
  installments?: number;
}

/**
 * The disclosure on the hosted card step of a payment that stores the card: that the card will be saved, for what,
 * and that the cardholder may have it deleted. The schemes' stored-credential rules require the cardholder's
 * informed consent at the initial payment; Kassa never stores a card without showing this.
 */
export function StoredCardDisclosure(props: { t: Messages; merchantName: string; purpose: SaveCardPurpose }) {
  const { t, merchantName, purpose } = props;
  const text =
    purpose.type === 'RECURRING'
      ? t.saveCardRecurring
      : purpose.type === 'INSTALLMENTS'
        ? t.saveCardInstallments
        : t.saveCardUnscheduled;
  return (
    <section class="save-card" aria-labelledby="save-card-title" id="save-card">
      <h2 id="save-card-title">{t.saveCardTitle}</h2>
      <p>{format(text, { merchant: merchantName, count: String(purpose.installments ?? '') })}</p>
      <p>{format(t.saveCardWithdraw, { merchant: merchantName })}</p>
    </section>
  );
}

import type { Language, Messages } from '../i18n.js';
import { AmountLines } from './amount-lines.js';
import { CancelForm } from './cancel-form.js';
import { type SaveCardPurpose, StoredCardDisclosure } from './stored-card-disclosure.js';

/** What the card form shows again after an error (never the number or security code in full). */
export interface CardFormValues {
  expiry?: string;
  cardholderName?: string;
}

type FieldName = 'number' | 'expiry' | 'securityCode' | 'cardholderName';

/**
 * The hosted card step (spec §1.4): card number, expiry, security code, cardholder name, with errors next to each
 * field and announced in a summary, and a way to cancel back to the shop. Works without JavaScript; card-step.js adds
 * live brand and fee preview.
 */
export function CardStepPage(props: {
  t: Messages;
  lang: Language;
  merchantName: string;
  currency: string;
  value: number;
  action: string;
  /** Where the cancel form posts (the review step's cancel: the payment ends cancelled, back to urls.cancel). */
  cancelAction: string;
  quoteUrl: string;
  linkToken: string;
  csrf: string;
  errors: { field: string; message: string }[];
  values: CardFormValues;
  /** Set when the payment stores the card (initial `credentialOnFile`): the disclosure is shown above the button. */
  saveCard?: SaveCardPurpose;
}) {
  const { t } = props;
  const errorOf = (f: FieldName) => props.errors.find((e) => e.field === f);
  const messageOf = (f: FieldName) => {
    const e = errorOf(f);
    return e ? (t[e.message as keyof Messages] ?? e.message) : undefined;
  };
  const field = (name: FieldName, label: string, attrs: Record<string, string | number | boolean>, hint?: string) => {
    const message = messageOf(name);
    return (
      <div>
        <label for={name}>
          {label}
          {hint && <span class="hint"> ({hint})</span>}
        </label>
        <input
          id={name}
          name={name}
          aria-invalid={message ? 'true' : undefined}
          aria-describedby={message ? `${name}-error` : undefined}
          {...attrs}
        />
        {message && (
          <p class="field-error" id={`${name}-error`}>
            {message}
          </p>
        )}
      </div>
    );
  };
  return (
    <>
      <h1>{t.cardStepTitle}</h1>
      <p class="merchant">
        {t.paidTo} <strong>{props.merchantName}</strong>
      </p>
      <AmountLines t={t} lang={props.lang} currency={props.currency} value={props.value} surchargeValue={0} />
      {props.errors.length > 0 && (
        <div class="errors" role="alert" tabindex={-1} id="error-summary">
          <p>{t.errorsTitle}</p>
          <ul>
            {props.errors.map((e) => (
              <li key={e.field}>
                <a href={`#${e.field}`}>{t[e.message as keyof Messages] ?? e.message}</a>
              </li>
            ))}
          </ul>
        </div>
      )}
      <form
        method="post"
        action={props.action}
        novalidate
        data-quote-url={props.quoteUrl}
        data-currency={props.currency}
        data-lang={props.lang}
        data-msg-brand={t.brandDetected}
        data-msg-fee={t.feePreview}
        id="card-form"
      >
        <input type="hidden" name="t" value={props.linkToken} />
        <input type="hidden" name="csrf" value={props.csrf} />
        {field('number', t.cardNumber, {
          type: 'text',
          inputmode: 'numeric',
          autocomplete: 'cc-number',
          maxlength: 23,
          required: true,
        })}
        <p class="brand" id="brand" aria-live="polite" />
        <div class="row">
          {field('expiry', t.expiry, {
            type: 'text',
            inputmode: 'numeric',
            autocomplete: 'cc-exp',
            placeholder: 'MM/YY',
            maxlength: 7,
            required: true,
            value: props.values.expiry ?? '',
          })}
          {field('securityCode', t.securityCode, {
            type: 'password',
            inputmode: 'numeric',
            autocomplete: 'cc-csc',
            maxlength: 4,
            required: true,
          })}
        </div>
        {field(
          'cardholderName',
          t.cardholderName,
          { type: 'text', autocomplete: 'cc-name', maxlength: 45, value: props.values.cardholderName ?? '' },
          t.optional,
        )}
        <p class="preview" id="fee-preview" aria-live="polite" />
        {props.saveCard && <StoredCardDisclosure t={t} merchantName={props.merchantName} purpose={props.saveCard} />}
        <button type="submit">{t.next}</button>
      </form>
      <CancelForm t={t} action={props.cancelAction} linkToken={props.linkToken} csrf={props.csrf} />
    </>
  );
}

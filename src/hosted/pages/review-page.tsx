import type { Language, Messages } from '../i18n.js';
import { format } from '../i18n.js';
import { formatMoney } from '../money.js';
import { AmountLines } from './amount-lines.js';
import { CancelForm } from './cancel-form.js';

/**
 * The review step (spec §1.9): the amounts as binding values — with a surcharge, the fee as its own labelled line and
 * the new total — and a confirm button stating the total. Hidden fields carry the browser data 3-D Secure needs.
 */
export function ReviewPage(props: {
  t: Messages;
  lang: Language;
  merchantName: string;
  currency: string;
  value: number;
  surchargeValue: number;
  surchargeReason?: string;
  cardLabel: string;
  confirmAction: string;
  cancelAction: string;
  changeCardHref: string;
  linkToken: string;
  csrf: string;
  /**
   * surcharge-consent.ts reviewDigest of the card and amounts shown: the confirmation is for these, or refused
   * (without it — a page rendered for its markup only — every confirmation is refused).
   */
  reviewDigest?: string;
  notice?: string;
}) {
  const { t, lang } = props;
  const total = formatMoney(props.value + props.surchargeValue, props.currency, lang);
  return (
    <>
      <h1>{t.reviewTitle}</h1>
      <p class="merchant">
        {t.paidTo} <strong>{props.merchantName}</strong>
      </p>
      {props.notice && (
        <p class="errors" role="alert">
          {props.notice}
        </p>
      )}
      <p>
        {t.card}: <strong data-testid="card-label">{props.cardLabel}</strong> —{' '}
        <a href={props.changeCardHref}>{t.changeCard}</a>
      </p>
      <AmountLines
        t={t}
        lang={lang}
        currency={props.currency}
        value={props.value}
        surchargeValue={props.surchargeValue}
        surchargeReason={props.surchargeReason}
      />
      <form method="post" action={props.confirmAction} id="confirm-form">
        <input type="hidden" name="t" value={props.linkToken} />
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="totalValue" value={String(props.value + props.surchargeValue)} />
        <input type="hidden" name="review" value={props.reviewDigest ?? ''} />
        <input type="hidden" name="javaScriptEnabled" value="false" />
        <input type="hidden" name="colorDepth" value="" />
        <input type="hidden" name="screenHeight" value="" />
        <input type="hidden" name="screenWidth" value="" />
        <input type="hidden" name="timeZoneOffset" value="" />
        <button type="submit">{format(t.pay, { total })}</button>
      </form>
      <CancelForm t={t} action={props.cancelAction} linkToken={props.linkToken} csrf={props.csrf} />
    </>
  );
}

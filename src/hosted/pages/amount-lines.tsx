import type { Language, Messages } from '../i18n.js';
import { formatMoney } from '../money.js';

/**
 * The amounts the cardholder reviews (spec §1.9): the merchant amount; when a surcharge is offered, the fee as its own
 * labelled line and the new total. With no surcharge, only the amount — no fee text at all.
 */
export function AmountLines(props: {
  t: Messages;
  lang: Language;
  currency: string;
  value: number;
  surchargeValue: number;
  surchargeReason?: string;
}) {
  const { t, lang, currency } = props;
  const money = (v: number) => formatMoney(v, currency, lang);
  if (props.surchargeValue === 0) {
    return (
      <table class="amounts">
        <tbody>
          <tr class="total">
            <th scope="row">{t.total}</th>
            <td data-testid="total">{money(props.value)}</td>
          </tr>
        </tbody>
      </table>
    );
  }
  return (
    <>
      <table class="amounts">
        <tbody>
          <tr>
            <th scope="row">{t.amount}</th>
            <td data-testid="amount">{money(props.value)}</td>
          </tr>
          <tr>
            <th scope="row">{t.cardFee}</th>
            <td data-testid="card-fee">{money(props.surchargeValue)}</td>
          </tr>
          <tr class="total">
            <th scope="row">{t.total}</th>
            <td data-testid="total">{money(props.value + props.surchargeValue)}</td>
          </tr>
        </tbody>
      </table>
      <p class="note">
        {props.surchargeReason === 'NON_EEA_CARD' ? t.feeExplanationNonEea : t.feeExplanationCommercial}
      </p>
    </>
  );
}

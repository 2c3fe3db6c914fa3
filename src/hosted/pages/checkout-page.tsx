import type { CheckoutSession } from '../../domain/sessions/checkout-session.js';
import type { Language, Messages } from '../i18n.js';
import { formatMoney } from '../money.js';
import { AmountLines } from './amount-lines.js';

/** The hosted payment page's checkout step: merchant, order lines, amount, then on to the card step. */
export function CheckoutPage(props: {
  t: Messages;
  lang: Language;
  merchantName: string;
  session: CheckoutSession;
  action: string;
  linkToken: string;
  csrf: string;
}) {
  const { t, lang, session } = props;
  const items = session.order?.items ?? [];
  return (
    <>
      <h1>{t.checkoutTitle}</h1>
      <p class="merchant">
        {t.paidTo} <strong>{props.merchantName}</strong>
      </p>
      {items.length > 0 && (
        <>
          <h2>{t.orderLines}</h2>
          <table class="amounts">
            <tbody>
              {items.map((item) => (
                <tr key={item.name}>
                  <th scope="row">
                    {item.name} × {item.quantity}
                  </th>
                  <td>{formatMoney(item.unitPrice * item.quantity, session.currency, lang)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <AmountLines t={t} lang={lang} currency={session.currency} value={session.value} surchargeValue={0} />
      <form method="post" action={props.action}>
        <input type="hidden" name="t" value={props.linkToken} />
        <input type="hidden" name="csrf" value={props.csrf} />
        <button type="submit">{t.continueToPayment}</button>
      </form>
    </>
  );
}

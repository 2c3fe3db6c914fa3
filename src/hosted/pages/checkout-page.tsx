import type { CheckoutSession } from '../../domain/sessions/checkout-session.js';
import type { Language, Messages } from '../i18n.js';
import { formatMoney } from '../money.js';
import { AmountLines } from './amount-lines.js';
import { CancelForm } from './cancel-form.js';

/**
 * The hosted payment page's checkout step: merchant, order lines, amount, then on to the card step (or back to the
 * shop).
 */
export function CheckoutPage(props: {
  t: Messages;
  lang: Language;
  merchantName: string;
  session: CheckoutSession;
  action: string;
  /** Where the cancel form posts: the session's try ends cancelled, back to urls.cancel. */
  cancelAction: string;
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
              {items.map((item, i) => (
                // Paygate's items may carry any subset of their members (wire §2): show what is given.
                <tr key={i}>
                  <th scope="row">
                    {item.name ?? item.description ?? item.sku ?? ''}
                    {item.quantity !== undefined && ` × ${item.quantity}`}
                  </th>
                  <td>
                    {item.grossPrice !== undefined &&
                      formatMoney(item.grossPrice * (item.quantity ?? 1), session.currency, lang)}
                  </td>
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
      <CancelForm t={t} action={props.cancelAction} linkToken={props.linkToken} csrf={props.csrf} />
    </>
  );
}

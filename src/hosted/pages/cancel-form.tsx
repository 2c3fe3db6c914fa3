import type { Messages } from '../i18n.js';

/**
 * The cardholder's way back to the shop from every hosted step that waits for them (checkout, card, review): a form
 * posting the page's link token and CSRF token to `action`, whose route ends the payment cancelled (20040002) and
 * sends the browser to `urls.cancel` with PayID (paygate-v2-wire.md §6). A form, not a link, so that a prefetch or a
 * crawler cannot cancel, and so that it works without JavaScript.
 */
export function CancelForm(props: { t: Messages; action: string; linkToken: string; csrf: string }) {
  return (
    <form method="post" action={props.action} id="cancel-form">
      <input type="hidden" name="t" value={props.linkToken} />
      <input type="hidden" name="csrf" value={props.csrf} />
      <button type="submit" class="secondary">
        {props.t.cancelAndReturn}
      </button>
    </form>
  );
}

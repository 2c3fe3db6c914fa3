import { type FormClient, formWithAction, readForm } from './form-client.js';

/**
 * Walks Kassa's pages as a browser without JavaScript does after the cardholder confirmed: the 3DS Method page's
 * <noscript> continue link, then on to the final page, whose link leads to the merchant. Frictionless cards only
 * (a challenge needs the ACS page: the browser tests drive it).
 * @returns the first URL outside Kassa (the merchant's return or cancel URL), or the last Kassa page reached.
 */
export async function followToMerchant(
  client: FormClient,
  kassaUrl: string,
  first: { status: number; headers: Headers; html: string },
): Promise<{ external?: string; page?: { status: number; html: string } }> {
  let res = first;
  for (let step = 0; step < 12; step++) {
    let next: string | undefined;
    if (res.status >= 300 && res.status < 400) next = res.headers.get('location') ?? undefined;
    else next = res.html.match(/<a class="button" href="([^"]+)"/)?.[1]?.replaceAll('&amp;', '&');
    if (!next) return { page: res };
    const url = new URL(next, kassaUrl);
    if (url.origin !== new URL(kassaUrl).origin) return { external: url.toString() };
    res = await client.get(url.toString());
  }
  throw new Error('too many steps');
}

/**
 * Pays on Kassa's pages as a browser without JavaScript, from a session's checkout page (checkout → start → card step)
 * or a HOSTED payment's card step: card `pan` (expiry 12/30, CVC 123) → review → confirm, then on to the merchant
 * (frictionless cards only).
 */
export async function payInHostedSession(client: FormClient, kassaUrl: string, entryUrl: string, pan: string) {
  const entry = await client.get(entryUrl);
  let cardPage = entry;
  const start = readForm(entry.html, kassaUrl, { action: '/start' });
  if (start) {
    const started = await client.post(start.action, start.fields);
    if (started.status !== 303) throw new Error(`start answered ${started.status}`);
    cardPage = await client.get(started.headers.get('location') ?? '');
  }
  const card = formWithAction(cardPage.html, kassaUrl, '/card');
  const afterCard = await client.post(card.action, {
    ...card.fields,
    number: pan,
    expiry: '12/30',
    securityCode: '123',
  });
  const review = await client.get(afterCard.headers.get('location') ?? '');
  const confirm = formWithAction(review.html, kassaUrl, '/confirm');
  const done = await followToMerchant(client, kassaUrl, await client.post(confirm.action, confirm.fields));
  return { review, done };
}

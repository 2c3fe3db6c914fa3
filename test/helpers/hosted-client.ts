import { Agent, fetch } from 'undici';
import type { TestKassa } from './test-kassa.js';

/** A form-posting HTTP client for the hosted pages, as a browser without JavaScript would use them. */
export class HostedClient {
  private readonly dispatcher: Agent;

  constructor(private readonly t: TestKassa) {
    this.dispatcher = new Agent({ connect: { ca: t.ca } });
  }

  /** GET a page (path or absolute URL); redirects are not followed. */
  async get(url: string, headers: Record<string, string> = {}) {
    const res = await fetch(new URL(url, this.t.url), { dispatcher: this.dispatcher, redirect: 'manual', headers });
    return { status: res.status, headers: res.headers, html: await res.text() };
  }

  /** POST a form; redirects are not followed. */
  async post(url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
    const res = await fetch(new URL(url, this.t.url), {
      method: 'POST',
      dispatcher: this.dispatcher,
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
    return { status: res.status, headers: res.headers, html: await res.text() };
  }

  async close() {
    await this.dispatcher.close();
  }
}

/** The hidden inputs of the form whose action contains `actionPart`. */
export function formFields(html: string, actionPart: string): { action: string; fields: Record<string, string> } {
  const forms = [...html.matchAll(/<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)];
  const form = forms.find((f) => f[1]?.includes(actionPart));
  if (!form) throw new Error(`no form with action ${actionPart} in:\n${html}`);
  const fields: Record<string, string> = {};
  for (const m of (form[2] ?? '').matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) {
    if (m[1]) fields[m[1]] = (m[2] ?? '').replaceAll('&amp;', '&');
  }
  return { action: (form[1] ?? '').replaceAll('&amp;', '&'), fields };
}

/**
 * Walks Kassa's pages as a browser without JavaScript does after the cardholder confirmed: the 3DS Method page's
 * <noscript> continue link, then on to the final page, whose link leads to the merchant. Frictionless cards only
 * (a challenge needs the ACS page: the browser tests drive it).
 * @returns the first URL outside Kassa (the merchant's return or cancel URL), or the last Kassa page reached.
 */
export async function followToMerchant(
  client: HostedClient,
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

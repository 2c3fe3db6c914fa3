/**
 * Drives Kassa's 3-D Secure pages and the simulated ACS over plain HTTPS, the way a browser without JavaScript
 * would: read each page's form, submit it. Used by the flow tests (the browser tests use Chromium instead).
 */
import type { Kysely } from 'kysely';
import { Agent, fetch } from 'undici';
import { validateAuthenticationResponse } from '../../../src/domain/threeds/authentication-response-validator.js';

/** A form of an HTML page: its action (absolute) and hidden inputs. */
export interface PageForm {
  action: string;
  fields: Record<string, string>;
}

const decode = (s: string) =>
  s
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

/** The first <form> of `html` (or the one with `id`), with its hidden inputs; action resolved against `base`. */
export function readForm(html: string, base: string, id?: string): PageForm | undefined {
  const forms = [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)];
  const form = id === undefined ? forms[0] : forms.find((f) => f[1]?.includes(`id="${id}"`));
  if (form === undefined) return undefined;
  const action = /action="([^"]*)"/.exec(form[1] ?? '')?.[1] ?? '';
  const fields: Record<string, string> = {};
  for (const input of (form[2] ?? '').matchAll(/<input\b([^>]*)>/g)) {
    const attrs = input[1] ?? '';
    if (!/type="hidden"/.test(attrs)) continue;
    const name = /name="([^"]*)"/.exec(attrs)?.[1];
    const value = /value="([^"]*)"/.exec(attrs)?.[1] ?? '';
    if (name !== undefined) fields[decode(name)] = decode(value);
  }
  return { action: new URL(decode(action), base).toString(), fields };
}

/** `data-next` of a page body (where Kassa's finished page sends the browser). */
export function nextUrlOf(html: string): string | undefined {
  const next = /data-next="([^"]*)"/.exec(html)?.[1];
  return next === undefined ? undefined : decode(next);
}

/** A tiny HTTPS browser without JavaScript: GET and form POSTs, trusting the test CA, never following redirects. */
export class FormClient {
  readonly #dispatcher: Agent;

  constructor(ca: string) {
    this.#dispatcher = new Agent({ connect: { ca } });
  }

  async get(url: string): Promise<{ status: number; html: string; headers: Headers }> {
    const res = await fetch(url, { dispatcher: this.#dispatcher, redirect: 'manual' });
    return { status: res.status, html: await res.text(), headers: res.headers as unknown as Headers };
  }

  async post(url: string, fields: Record<string, string>): Promise<{ status: number; html: string; headers: Headers }> {
    const res = await fetch(url, {
      method: 'POST',
      dispatcher: this.#dispatcher,
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    return { status: res.status, html: await res.text(), headers: res.headers as unknown as Headers };
  }

  /** Submits `form` (POST) and returns the next page. */
  submit(form: PageForm, extra: Record<string, string> = {}) {
    return this.post(form.action, { ...form.fields, ...extra });
  }

  close(): Promise<void> {
    return this.#dispatcher.close();
  }
}

/**
 * Runs a browser challenge from Kassa's challenge page (`_links.redirect.href`) to Kassa's final page: POST creq to
 * the ACS, answer the ACS's page (one-time code or Cancel), POST the CRes to Kassa's notificationURL.
 * @returns Kassa's final page and the URL it sends the browser to.
 */
export async function completeBrowserChallenge(
  client: FormClient,
  challengeHref: string,
  action: { otp: string } | { cancel: true },
): Promise<{ html: string; status: number; next?: string }> {
  const kassaPage = await client.get(challengeHref);
  const toAcs = readForm(kassaPage.html, challengeHref, 'autopost');
  if (toAcs === undefined) throw new Error(`no creq form on the challenge page: ${kassaPage.html.slice(0, 300)}`);
  const acsPage = await client.submit(toAcs);
  const answer = readForm(acsPage.html, toAcs.action);
  if (answer === undefined) throw new Error(`no form on the ACS page: ${acsPage.html.slice(0, 300)}`);
  const extra: Record<string, string> =
    'cancel' in action ? { action: 'cancel' } : { action: 'submit', otp: action.otp };
  const cresPage = await client.submit(answer, extra);
  const toKassa = readForm(cresPage.html, answer.action, 'autopost');
  if (toKassa === undefined) throw new Error(`no cres form on the ACS page: ${cresPage.html.slice(0, 300)}`);
  const final = await client.submit(toKassa);
  return { html: final.html, status: final.status, next: nextUrlOf(final.html) };
}

/** Stored outbox events of a payment, oldest first (type and parsed payload). */
export async function eventsOf(
  // biome-ignore lint/suspicious/noExplicitAny: reads the outbox table without the app's row types
  kysely: Kysely<any>,
  payId: string,
): Promise<{ type: string; payload: Record<string, unknown> }[]> {
  const rows = await kysely
    .selectFrom('notification')
    .select(['type', 'payload', 'created_at'])
    .where('pay_id', '=', payId)
    .orderBy('created_at')
    .execute();
  return rows.map((r: { type: string; payload: string }) => ({ type: r.type, payload: JSON.parse(r.payload) }));
}

/** The authenticationResponse of a payment's Authentication Notification, checked against the published schema. */
export async function authenticationResponseOf(
  // biome-ignore lint/suspicious/noExplicitAny: as above
  kysely: Kysely<any>,
  payId: string,
): Promise<Record<string, unknown> | undefined> {
  const event = (await eventsOf(kysely, payId)).find((e) => e.type === 'authentication');
  if (event === undefined) return undefined;
  const response = event.payload.authenticationResponse as Record<string, unknown>;
  const check = validateAuthenticationResponse(response);
  if (!check.ok) throw new Error(`authenticationResponse of ${payId} fails the schema: ${check.errors.join('; ')}`);
  return response;
}

/** Waits until `probe` returns a value other than undefined (polling every 50 ms, at most `ms`). */
export async function eventually<T>(probe: () => Promise<T | undefined>, ms = 8000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Drives Kassa's 3-D Secure pages and the simulated ACS over plain HTTPS, the way a browser without JavaScript
 * would: read each page's form, submit it. Used by the flow tests (the browser tests use Chromium instead).
 */
import type { Kysely } from 'kysely';
import { vi } from 'vitest';
import { validateAuthenticationResponse } from '../../../src/domain/threeds/authentication-response-validator.js';
import type { Database } from '../../../src/storage/database.js';
import { type FormClient, nextUrlOf, readForm } from '../../helpers/form-client.js';
import { outboxEvents } from '../../helpers/outbox.js';

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

/** The authenticationResponse of a payment's Authentication Notification, checked against the published schema. */
export async function authenticationResponseOf(
  kysely: Kysely<Database>,
  payId: string,
): Promise<Record<string, unknown> | undefined> {
  const event = (await outboxEvents(kysely, payId)).find((e) => e.type === 'authentication');
  if (event === undefined) return undefined;
  const response = event.payload.authenticationResponse as Record<string, unknown>;
  const check = validateAuthenticationResponse(response);
  if (!check.ok) throw new Error(`authenticationResponse of ${payId} fails the schema: ${check.errors.join('; ')}`);
  return response;
}

/** Waits until `probe` returns a value other than undefined (polling every 50 ms, at most `ms`). */
export function eventually<T>(probe: () => Promise<T | undefined>, ms = 8000): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await probe();
      if (value === undefined) throw new Error('condition not met in time');
      return value;
    },
    { timeout: ms, interval: 50 },
  );
}

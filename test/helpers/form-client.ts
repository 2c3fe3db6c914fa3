/**
 * A browser without JavaScript for tests: GET pages, read their forms, POST them; never follows redirects. Used by the
 * 3-D Secure flow tests and the hosted-page tests (the browser tests use Chromium instead).
 */
import { Agent, fetch } from 'undici';

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

/**
 * The first <form> of `html` — or the one with `id`, or whose action contains `{ action }` — with its hidden inputs;
 * action resolved against `base`.
 */
export function readForm(html: string, base: string, select?: string | { action: string }): PageForm | undefined {
  const forms = [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)];
  const form =
    select === undefined
      ? forms[0]
      : forms.find((f) =>
          typeof select === 'string'
            ? f[1]?.includes(`id="${select}"`)
            : decode(/action="([^"]*)"/.exec(f[1] ?? '')?.[1] ?? '').includes(select.action),
        );
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

  /** `base`: where relative URLs (a redirect's Location, a form's action) are resolved; Kassa's URL in tests. */
  constructor(
    ca: string,
    private readonly base?: string,
  ) {
    this.#dispatcher = new Agent({ connect: { ca } });
  }

  async get(
    url: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; html: string; headers: Headers }> {
    const res = await fetch(new URL(url, this.base), { dispatcher: this.#dispatcher, redirect: 'manual', headers });
    return { status: res.status, html: await res.text(), headers: res.headers as unknown as Headers };
  }

  async post(
    url: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; html: string; headers: Headers }> {
    const res = await fetch(new URL(url, this.base), {
      method: 'POST',
      dispatcher: this.#dispatcher,
      redirect: 'manual',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
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

/** The form of `html` whose action contains `actionPart`. @throws Error showing the page when there is none. */
export function formWithAction(html: string, base: string, actionPart: string): PageForm {
  const form = readForm(html, base, { action: actionPart });
  if (!form) throw new Error(`no form with action ${actionPart} in:\n${html}`);
  return form;
}

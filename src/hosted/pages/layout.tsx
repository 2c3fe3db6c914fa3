import type { ComponentChildren } from 'preact';
import type { Language } from '../i18n.js';

/** Inline styles of every hosted page (served under a CSP nonce; no third-party assets). */
const CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7}
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.4rem;margin:0 0 1rem}
h2{font-size:1.1rem;margin:1.25rem 0 .5rem}
.merchant{color:#444;margin:0 0 1rem}
label{display:block;font-weight:600;margin:.9rem 0 .25rem}
.hint{font-weight:400;color:#555}
input{width:100%;padding:.6rem .7rem;font:inherit;border:1px solid #6b6b6b;border-radius:4px}
input:focus,button:focus,a:focus{outline:3px solid #1f5fbf;outline-offset:2px}
input[aria-invalid=true]{border-color:#b00020}
.field-error{color:#b00020;margin:.25rem 0 0}
.errors{border:2px solid #b00020;border-radius:4px;padding:.5rem 1rem;margin-bottom:1rem}
.row{display:flex;gap:1rem}.row>div{flex:1}
button{display:block;width:100%;margin-top:1.25rem;padding:.75rem;font:inherit;font-weight:600;border:0;border-radius:4px;background:#1f5fbf;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1f5fbf;border:1px solid #1f5fbf}
.amounts{width:100%;border-collapse:collapse;margin:.5rem 0}
.amounts th{text-align:left;font-weight:400;padding:.35rem 0}
.amounts td{text-align:right;padding:.35rem 0;font-variant-numeric:tabular-nums}
.amounts tr.total th,.amounts tr.total td{font-weight:700;border-top:1px solid #6b6b6b}
.note{color:#444;font-size:.9rem}
.brand{color:#333;margin:.25rem 0 0;min-height:1.5em}
.preview{color:#333;font-size:.95rem;min-height:1.5em}
a{color:#1f5fbf}
.button{display:inline-block;margin-top:1rem;padding:.7rem 1.2rem;font:inherit;font-weight:600;border:0;border-radius:4px;background:#1f5fbf;color:#fff;text-decoration:none;cursor:pointer}
.merchant-texts{margin:0 0 1rem}
.logo{display:block;max-width:12rem;max-height:4rem;margin:0 0 .75rem}
.order-description,.amount-text{color:#333;margin:.25rem 0}
.method-frame{position:absolute;width:0;height:0;border:0;visibility:hidden}
`;

/**
 * The frame of every hosted page (card, review, checkout, 3-D Secure): language, title, the nonce'd style, and either
 * a same-origin script (`script`, a URL) or fixed inline script text (`inlineScript`, never request data: pages pass
 * their data through `data-*` attributes on <body>, which Preact escapes).
 */
export function Layout(props: {
  lang: Language | string;
  title: string;
  nonce: string;
  children: ComponentChildren;
  script?: string;
  inlineScript?: string;
  head?: ComponentChildren;
  data?: Record<string, string>;
}) {
  const data = Object.fromEntries(Object.entries(props.data ?? {}).map(([k, v]) => [`data-${k}`, v]));
  return (
    <html lang={props.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{props.title}</title>
        <style nonce={props.nonce}>{CSS}</style>
        {props.head}
      </head>
      <body {...data}>
        <main>{props.children}</main>
        {props.script && <script nonce={props.nonce} src={props.script} defer />}
        {props.inlineScript && <script nonce={props.nonce} dangerouslySetInnerHTML={{ __html: props.inlineScript }} />}
      </body>
    </html>
  );
}

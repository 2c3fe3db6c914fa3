import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { THREE_DS_STEP_HEADER, WaitingPage } from '../../../src/hosted/threeds/three-ds-pages.js';

const RETRY = '/3ds/challenge/0123456789abcdef0123456789abcdef?token=abc&x=1';

describe('the 3-D Secure waiting page', () => {
  it('has no timed refresh (axe meta-refresh, WCAG 2.2.1): a nonce’d script polls, a live status, Check again in <noscript>', () => {
    const html = renderToString(WaitingPage({ nonce: 'n0nce', lang: 'en', retryUrl: RETRY }));
    expect(html).not.toMatch(/http-equiv="refresh"/i);
    expect(html).toContain('<script nonce="n0nce">');
    expect(html).toContain(`data-next="${RETRY.replaceAll('&', '&amp;')}"`);
    expect(html).toContain(JSON.stringify(THREE_DS_STEP_HEADER));
    expect(html).toMatch(/<p id="waiting-status" role="status" aria-live="polite">/);
    expect(html).toMatch(/<noscript><a class="button" href="[^"]+">Check again<\/a><\/noscript>/);
  });

  it('without a retry URL it has no script', () => {
    const html = renderToString(WaitingPage({ nonce: 'n0nce', lang: 'en' }));
    expect(html).not.toContain('<script');
  });

  // Security: cardholderInfo is the issuer's text (EMVCo ARes, up to 128 characters): shown, never as markup.
  it('shows the issuer’s cardholderInfo as escaped text under its own heading', () => {
    const info = 'Approve in the <b>Bank</b> app & "confirm"';
    const html = renderToString(WaitingPage({ nonce: 'n', lang: 'da', retryUrl: RETRY, cardholderInfo: info }));
    expect(html).toContain('Besked fra din bank');
    expect(html).toContain('Approve in the &lt;b>Bank&lt;/b> app &amp; &quot;confirm&quot;');
    expect(html).not.toContain('<b>Bank</b>');
  });
});

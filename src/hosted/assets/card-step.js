// Kassa hosted card step: live card brand and surcharge preview. The page works without this script; the server
// checks everything again. No third-party code; served from Kassa under the page's CSP nonce.
(() => {
  const form = document.getElementById('card-form');
  if (!form) return;
  const number = form.querySelector('#number');
  const brandOut = document.getElementById('brand');
  const feeOut = document.getElementById('fee-preview');
  const t = form.querySelector('input[name=t]').value;
  const csrf = form.querySelector('input[name=csrf]').value;
  // A value ending in a period ("kr.") closes the sentence itself: "I alt: 1.256,78 kr." rather than "kr..".
  const fill = (template, values) =>
    template.replace(/\{(\w+)\}(\.?)/g, (_, k, stop) => {
      const value = values[k] ?? '';
      return value.endsWith('.') ? value : value + stop;
    });
  let lastPrefix = '';
  let timer;

  async function preview() {
    const digits = number.value.replace(/\D/g, '');
    const prefix = digits.slice(0, 8);
    if (prefix === lastPrefix) return;
    lastPrefix = prefix;
    // A quote that did not come back leaves no earlier card's brand or fee on the page, and is asked for again at
    // the next input, even when the prefix has not changed.
    const failed = () => {
      if (prefix !== lastPrefix) return;
      lastPrefix = '';
      brandOut.textContent = '';
      feeOut.textContent = '';
    };
    if (prefix.length < 6) {
      brandOut.textContent = digits.startsWith('4') ? fill(form.dataset.msgBrand, { brand: 'Visa' }) : '';
      feeOut.textContent = '';
      return;
    }
    try {
      const res = await fetch(form.dataset.quoteUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ t, csrf, bin: prefix }),
        credentials: 'same-origin',
      });
      if (!res.ok) return failed();
      const q = await res.json();
      if (prefix !== lastPrefix) return;
      brandOut.textContent = q.brand ? fill(form.dataset.msgBrand, { brand: q.brand }) : '';
      feeOut.textContent = q.fee ? fill(form.dataset.msgFee, { fee: q.fee, total: q.total }) : '';
    } catch {
      // The preview is a convenience; the review step shows the binding amounts.
      failed();
    }
  }

  number.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(preview, 150);
  });
  // A number already there when this deferred script runs (typed while it loaded, filled in by the browser, kept by
  // a page shown again) gets its preview now: no input event will come for it.
  if (number.value) preview();
  const summary = document.getElementById('error-summary');
  if (summary) summary.focus();
})();

// Kassa hosted review step: fills the browser data EMV 3-D Secure asks for (EMVCo browser* fields). Without this
// script the form still posts, with javaScriptEnabled=false.
(() => {
  const form = document.getElementById('confirm-form');
  if (!form) return;
  const set = (name, value) => {
    const input = form.querySelector(`input[name=${name}]`);
    if (input) input.value = String(value);
  };
  set('javaScriptEnabled', 'true');
  set('colorDepth', window.screen.colorDepth);
  set('screenHeight', window.screen.height);
  set('screenWidth', window.screen.width);
  set('timeZoneOffset', new Date().getTimezoneOffset());
})();

/**
 * Finding and masking card numbers in free text (a logged URL, a name a shopper typed): PCI DSS 3.4.1, a PAN is never
 * kept readable. Pure: used by the request log (http/plugins/log-redaction.ts) and by the checks of text fields.
 */
import { passesLuhn } from './card-checks.js';

/**
 * `text` with every card number in it masked: its first 6 and last 4 digits kept, the others each replaced by `*`
 * (PCI DSS 3.4.1: BIN and last four digits at most are shown; Kassa keeps no more of a card either, see summarizeCard).
 * A card number is 13 to 19 digits (the card brands' lengths; ISO/IEC 7812-1 allows up to 19) that pass the Luhn
 * check, written as one run (not part of a longer one) or in groups joined by runs of separators: spaces, no-break
 * spaces, `.`, `-`, `_`, `/`, `+` (`4000 0000 0001 0076`, `4000--0000--0001--0076`, `4000/0000/0001/0076`), also
 * percent-encoded (`%20`, `%C2%A0`, `%34`) and double-encoded (`%2520`): a text holding `%` is decoded first (up to
 * MAX_DECODINGS times; a malformed escape is left as it is, the rest decoded), and logged decoded when a card number
 * was masked in it. Only whole groups make up a card number (`12/4000000000010076`: the 16 digits, or all 18 when
 * those pass the Luhn check). When card numbers overlap (share a group), their union is masked as one, so no more
 * than the first 6 and last 4 digits of any of them are shown. Digits failing the Luhn check (most ids, dates,
 * timestamps, Kassa's pseudo card numbers) are kept as they are. Loops (and, for escapes, one regex that cannot
 * backtrack), linear in the length of `text`, as at most 19 groups are tried from each: 0.05–0.15 µs per URL without a
 * card number or `%`, under 1 ms for 2,000 characters of digits and separators (it runs on every logged request).
 */
export function maskCardNumbers(text: string): string {
  const decoded = text.includes('%') ? decodedOrAsIs(text) : text;
  const masked = maskGroupedDigits(decoded);
  return masked === decoded ? text : masked;
}

/** Percent-decodings applied at most: one for the URL, more for a URL encoded twice or three times. */
const MAX_DECODINGS = 3;

/** A run of percent escapes, decoded together (a UTF-8 character such as NBSP, `%C2%A0`, takes two). */
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

function decodedOrAsIs(text: string): string {
  let decoded = text;
  for (let i = 0; i < MAX_DECODINGS && decoded.includes('%'); i++) {
    const next = decoded.replace(ESCAPES, decodeEscapes);
    if (next === decoded) break;
    decoded = next;
  }
  return decoded;
}

/** A run of escapes decoded; when it is not UTF-8, its ASCII escapes decoded and the others kept as written. */
function decodeEscapes(escapes: string): string {
  try {
    return decodeURIComponent(escapes);
  } catch {
    let out = '';
    for (let i = 0; i < escapes.length; i += 3) {
      const code = Number.parseInt(escapes.slice(i + 1, i + 3), 16);
      out += code < 0x80 ? String.fromCharCode(code) : escapes.slice(i, i + 3);
    }
    return out;
  }
}

/** Card numbers written as one run of digits or as groups of digits joined by runs of separators. */
function maskGroupedDigits(text: string): string {
  let masked = '';
  let copied = 0;
  let position = 0;
  while (position < text.length) {
    if (!isDigit(text.charCodeAt(position))) {
      position++;
      continue;
    }
    // A chain: digit runs (groups) joined by separator runs, as long as it goes.
    const chain: Chain = { starts: [], ends: [], digits: '', offsets: [0] };
    let end = position;
    for (;;) {
      const start = end;
      while (end < text.length && isDigit(text.charCodeAt(end))) end++;
      chain.starts.push(start);
      chain.ends.push(end);
      chain.digits += text.slice(start, end);
      chain.offsets.push(chain.digits.length);
      let next = end;
      while (next < text.length && isSeparator(text.charCodeAt(next))) next++;
      if (next === end || !isDigit(text.charCodeAt(next))) break;
      end = next;
    }
    for (const [first, last] of cardNumberSpans(chain)) {
      const from = chain.starts[first] ?? 0;
      const to = chain.ends[last] ?? 0;
      masked += `${text.slice(copied, from)}${maskDigits(text.slice(from, to))}`;
      copied = to;
    }
    position = end;
  }
  return copied === 0 ? text : masked + text.slice(copied);
}

/**
 * Digit groups joined by separators: where each starts and ends in the text, their digits one after the other, and
 * where each group's digits start in those (`offsets[i]`; `offsets[groups]` is the digits' length).
 */
interface Chain {
  starts: number[];
  ends: number[];
  digits: string;
  offsets: number[];
}

/**
 * The spans of a chain's groups (first and last group index) to mask: every sequence of whole groups holding 13–19
 * digits that pass the Luhn check, overlapping ones merged. At most 19 groups are tried from each (a group has a digit).
 */
function cardNumberSpans(chain: Chain): [number, number][] {
  const spans: [number, number][] = [];
  const groups = chain.starts.length;
  for (let first = 0; first < groups; first++) {
    const from = chain.offsets[first] ?? 0;
    for (let last = first; last < groups; last++) {
      const length = (chain.offsets[last + 1] ?? 0) - from;
      if (length > 19) break;
      if (length < 13 || !passesLuhn(chain.digits.slice(from, from + length))) continue;
      const previous = spans.at(-1);
      if (previous !== undefined && first <= previous[1]) previous[1] = Math.max(previous[1], last);
      else spans.push([first, last]);
    }
  }
  return spans;
}

/** `written` (a card number, its separators kept) with every digit but the first 6 and the last 4 replaced by `*`. */
function maskDigits(written: string): string {
  const total = written.replace(/[^0-9]/g, '').length;
  let seen = 0;
  let out = '';
  for (const c of written) {
    if (!isDigit(c.charCodeAt(0))) {
      out += c;
      continue;
    }
    seen++;
    out += seen <= 6 || seen > total - 4 ? c : '*';
  }
  return out;
}

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;

/** Space, no-break space (U+00A0), `.`, `-`, `_`, `/`, `+`: what joins the digit groups of a card number typed or pasted. */
const isSeparator = (code: number): boolean =>
  code === 0x20 || code === 0xa0 || code === 0x2e || code === 0x2d || code === 0x5f || code === 0x2f || code === 0x2b;

/**
 * Whether a text meant to be a name holds a card number, by the rules of {@link maskCardNumbers} (13–19 digits passing
 * the Luhn check, whole or in groups joined by spaces, `.`, `-`, `_`, `/`, `+`, also among other digits and words:
 * `4000 0000 0001 0001 123`). A cardholder name with one is a merchant's or a shopper's slip (the number typed or
 * mapped into the wrong field); refusing it keeps the number out of the database and the logs in clear (PCI DSS
 * 3.4.1). For names only: ids may be such numbers by chance (one in ten passes Luhn).
 */
export function holdsCardNumber(text: string): boolean {
  return maskCardNumbers(text) !== text;
}

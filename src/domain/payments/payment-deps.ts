import type { StoredCardService } from '../cards/stored-card-service.js';
import type { Acquirer } from '../ports/acquirer.js';
import type { BinTable } from '../ports/bin-table.js';
import type { CardVault } from '../ports/card-vault.js';
import type { Clock } from '../ports/clock.js';
import type { DirectoryServer } from '../ports/directory-server.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { PageLinks } from '../ports/page-links.js';
import type { Store } from '../ports/store.js';
import type { Payment } from './payment.js';

/** Lifetime of a payment's 3-D Secure links and of its vaulted card: 30 minutes. */
export const THREE_DS_LINK_TTL_MS = 30 * 60 * 1000;

/** How long the 3DS Method page waits for the ACS's callback before continuing with threeDSCompInd N (EMVCo: 10 s). */
export const THREE_DS_METHOD_TIMEOUT_MS = 10_000;

/**
 * What the payment operations (creation, authorization, the 3-D Secure browser steps, the results handler) need from
 * the outside world (ports) and settings. One object, built once in services.ts and passed to every operation.
 */
export interface PaymentServiceDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  bins: BinTable;
  directoryServer: DirectoryServer;
  acquirer: Acquirer;
  /** Kassa's 3-D Secure pages and EMVCo URLs (implemented in hosted/). */
  links: PageLinks;
  /** Kassa's public https base URL, without a trailing slash: only for `_links` in the payment.* event bodies. */
  publicUrl: string;
  /** Key of card fingerprints (HKDF-derived sub-key). */
  dataKey: string;
  /** Encrypted card data between AReq and the final 3-D Secure result (challenge, decoupled, 3DS Method redirect). */
  cardVault: CardVault;
  /**
   * Stored credentials (`credentialOnFile`): stores the card of an approved initial payment, finds the card behind
   * a pseudo card number. Without it, payments with `credentialOnFile` are served as ordinary payments.
   */
  storedCards?: StoredCardService;
  /** Lifetime of 3-D Secure links and vaulted cards, ms. Default THREE_DS_LINK_TTL_MS (30 min). */
  threeDSLinkTtlMs?: number;
  /** How long the 3DS Method page waits for the ACS's callback, ms. Default THREE_DS_METHOD_TIMEOUT_MS (10 s). */
  threeDSMethodTimeoutMs?: number;
  /** Called when an authenticationResponse fails its schema: a bug, logged and counted, never sent (DESIGN.md §5). */
  onInvalidAuthenticationResponse?: (payId: string, errors: string[]) => void;
  /** Called when a step failed in a way that is a bug or an outage (logged by the caller); the payment stays safe. */
  onUnexpectedError?: (payId: string, step: 'three-ds' | 'acquirer', error: unknown) => void;
  /**
   * Where the browser goes when Kassa's 3-D Secure pages are done; default `returnUrlOf`. The hosted payment page
   * sends a declined try back to its own page, where the cardholder may try another card.
   */
  returnUrl?: (payment: Payment) => string | undefined;
  /** Called once a payment's authorization outcome is final (committed): AUTHORIZED, OK or FAILED (metrics). */
  onPaymentFinal?: (payment: Payment) => void;
}

/** The lifetime of 3-D Secure links and vaulted cards of these deps, ms. */
export function linkTtlMs(deps: Pick<PaymentServiceDeps, 'threeDSLinkTtlMs'>): number {
  return deps.threeDSLinkTtlMs ?? THREE_DS_LINK_TTL_MS;
}

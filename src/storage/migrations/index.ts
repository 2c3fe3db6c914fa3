import type { Migration } from 'kysely';
import * as m0001 from './2026-11-21-0001-initial.js';
import * as m0002 from './2026-11-21-0002-notification-delivery.js';
import * as m0003 from './2026-11-21-0003-surcharge-audit.js';
import * as m0004 from './2026-11-21-0004-three-ds-flows.js';
import * as m0005 from './2026-11-21-0005-hosted-checkout.js';
import * as m0006 from './2026-11-21-0006-payment-status-index.js';
import * as m20261123cards from './2026-11-23-0001-card-vault.js';
import * as m20261123wire from './2026-11-23-0002-paygate-wire-fields.js';
import * as m20261123limits from './2026-11-23-0003-rate-limit-counter.js';
import * as m20261123authEpoch from './2026-11-23-0101-auth-epoch.js';
import * as m20261123idem from './2026-11-23-0102-idempotency-erase-unkeyed.js';
import * as m20261123writeAhead from './2026-11-23-0201-follow-up-write-ahead.js';
import * as m20261123tries from './2026-11-23-0301-session-card-tries.js';
import * as m20261123authNotify from './2026-11-23-0401-auth-notify.js';
import * as m20261126locality from './2026-11-26-0001-payment-locality.js';
import * as m20261127partial from './2026-11-27-0001-partial-sweep-indexes.js';
import * as m20261127language from './2026-11-27-0002-language-length.js';
import * as m20261127processing from './2026-11-27-0003-processing-payment-index.js';
import * as m20261128webhookRotation from './2026-11-28-0001-webhook-secret-rotation.js';

/** Every migration, by name. Names are date-prefixed so they sort in the order they were written. */
export const migrations: Record<string, Migration> = {
  '2026-11-21-0001-initial': m0001,
  '2026-11-21-0002-notification-delivery': m0002,
  '2026-11-21-0003-surcharge-audit': m0003,
  '2026-11-21-0004-three-ds-flows': m0004,
  '2026-11-21-0005-hosted-checkout': m0005,
  '2026-11-21-0006-payment-status-index': m0006,
  '2026-11-23-0001-card-vault': m20261123cards,
  '2026-11-23-0002-paygate-wire-fields': m20261123wire,
  '2026-11-23-0003-rate-limit-counter': m20261123limits,
  '2026-11-23-0101-auth-epoch': m20261123authEpoch,
  '2026-11-23-0102-idempotency-erase-unkeyed': m20261123idem,
  '2026-11-23-0201-follow-up-write-ahead': m20261123writeAhead,
  '2026-11-23-0301-session-card-tries': m20261123tries,
  '2026-11-23-0401-auth-notify': m20261123authNotify,
  '2026-11-26-0001-payment-locality': m20261126locality,
  '2026-11-27-0001-partial-sweep-indexes': m20261127partial,
  '2026-11-27-0002-language-length': m20261127language,
  '2026-11-27-0003-processing-payment-index': m20261127processing,
  '2026-11-28-0001-webhook-secret-rotation': m20261128webhookRotation,
};

import { KassaError, validationError } from '../errors/error-catalogue.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import {
  actorErrors,
  DEFAULT_SURCHARGE_SETTINGS,
  type FeeRule,
  feeRulesErrors,
  normalizeFeeRule,
  type SurchargeAuditAction,
  type SurchargeAuditEntry,
  type SurchargeSettings,
} from './surcharge-settings.js';

/** The outcome of a settings change: the settings now in force and the audit entry that records the change. */
export interface SurchargeSettingsChange {
  settings: SurchargeSettings;
  audit: SurchargeAuditEntry;
}

/**
 * Activation of surcharging by the support desk (spec §1.7, DESIGN.md §7). Every change, including one that leaves
 * the settings as they were, is written to the audit log with its actor, time (Clock port), before and after, in the
 * same transaction as the change itself.
 */
export class SurchargeSettingsService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Enables surcharging for a merchant with these fee rules, replacing any rules it had.
   * @param rules untrusted: validated here (`feeRulesErrors`); fields are named `rules.<index>.<key>`.
   * @param actor who asks for it (1–100 characters), recorded in the audit log.
   * @throws KassaError VALIDATION_FAILED (bad rule or actor), MERCHANT_NOT_FOUND.
   */
  async enable(merchantId: string, rules: readonly FeeRule[], actor: string): Promise<SurchargeSettingsChange> {
    const errors = [...feeRulesErrors(rules), ...actorErrors(actor)];
    if (errors.length > 0) throw validationError(errors);
    const after: SurchargeSettings = { enabled: true, rules: rules.map(normalizeFeeRule) };
    return this.change(merchantId, actor, 'ENABLE', () => after);
  }

  /**
   * Disables surcharging for a merchant. The rules are kept (shown by `get`, replaced by the next `enable`) but no
   * payment is surcharged while disabled.
   * @throws KassaError VALIDATION_FAILED (bad actor), MERCHANT_NOT_FOUND.
   */
  async disable(merchantId: string, actor: string): Promise<SurchargeSettingsChange> {
    const errors = actorErrors(actor);
    if (errors.length > 0) throw validationError(errors);
    return this.change(merchantId, actor, 'DISABLE', (before) => ({ enabled: false, rules: before.rules }));
  }

  /**
   * The merchant's settings; `DEFAULT_SURCHARGE_SETTINGS` (disabled, no rules) when never configured.
   * @throws KassaError MERCHANT_NOT_FOUND.
   */
  async get(merchantId: string): Promise<SurchargeSettings> {
    const stored = await this.store.surchargeSettings.get(merchantId);
    if (!stored) throw new KassaError('MERCHANT_NOT_FOUND');
    return stored.settings ?? DEFAULT_SURCHARGE_SETTINGS;
  }

  /**
   * The merchant's audit log, oldest first.
   * @throws KassaError MERCHANT_NOT_FOUND.
   */
  async listAudit(merchantId: string): Promise<SurchargeAuditEntry[]> {
    if (!(await this.store.surchargeSettings.get(merchantId))) throw new KassaError('MERCHANT_NOT_FOUND');
    return this.store.surchargeSettings.listAudit(merchantId);
  }

  private change(
    merchantId: string,
    actor: string,
    action: SurchargeAuditAction,
    next: (before: SurchargeSettings) => SurchargeSettings,
  ): Promise<SurchargeSettingsChange> {
    return this.store.transaction(async (tx) => {
      const stored = await tx.surchargeSettings.get(merchantId, { forUpdate: true });
      if (!stored) throw new KassaError('MERCHANT_NOT_FOUND');
      const before = stored.settings ?? DEFAULT_SURCHARGE_SETTINGS;
      const after = next(before);
      await tx.surchargeSettings.set(merchantId, after);
      const audit = await tx.surchargeSettings.appendAudit({
        merchantId,
        action,
        actor,
        at: this.clock.now(),
        before,
        after,
      });
      return { settings: after, audit };
    });
  }
}

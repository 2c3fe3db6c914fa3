import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { validationError } from '../../domain/errors/error-catalogue.js';
import {
  FEE_RULE_BRANDS,
  MAX_ACTOR_LENGTH,
  MAX_FEE_MINOR,
  SURCHARGE_RULE_REASONS,
  type SurchargeAuditEntry,
  type SurchargeSettings,
} from '../../domain/surcharge/surcharge-settings.js';
import type { SurchargeSettingsService } from '../../domain/surcharge/surcharge-settings-service.js';
import { adminAuth } from './admin-auth.js';

/** Actor recorded for admin API changes without an `x-kassa-actor` header. */
export const DEFAULT_ADMIN_ACTOR = 'admin-api';

const FeeRuleSchema = Type.Object(
  {
    brand: Type.Enum([...FEE_RULE_BRANDS], { description: 'VISA, MASTERCARD or * (any other brand)' }),
    reason: Type.Enum([...SURCHARGE_RULE_REASONS]),
    percentageBps: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 10_000, description: 'basis points of the merchant amount (180 = 1.80 %)' }),
    ),
    fixed: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_FEE_MINOR, description: 'minor units' })),
    max: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_FEE_MINOR, description: 'cap, minor units' })),
  },
  { additionalProperties: false },
);

const PutSurchargeBodySchema = Type.Object(
  {
    enabled: Type.Boolean({ description: 'must be true; DELETE disables' }),
    rules: Type.Array(FeeRuleSchema, { description: 'at most one rule per brand and reason' }),
  },
  { additionalProperties: false },
);

const MerchantParamsSchema = Type.Object({ merchantId: Type.String({ minLength: 1, maxLength: 64 }) });

const ActorHeadersSchema = Type.Object({
  'x-kassa-actor': Type.Optional(
    Type.String({ minLength: 1, maxLength: MAX_ACTOR_LENGTH, description: 'who makes the change (audit log)' }),
  ),
});

/** Options of `adminSurchargeRoutes`. */
export interface AdminSurchargeRoutesOptions {
  surcharge: SurchargeSettingsService;
  /** `KASSA_ADMIN_TOKEN`; when undefined the admin API is not registered and every `/admin` path answers 404. */
  adminToken: string | undefined;
}

const settingsBody = (merchantId: string, s: SurchargeSettings) => ({ merchantId, enabled: s.enabled, rules: s.rules });

const auditBody = (e: SurchargeAuditEntry) => ({
  seq: e.seq,
  action: e.action,
  actor: e.actor,
  at: e.at.toISOString(),
  before: e.before,
  after: e.after,
});

const actorOf = (headers: { 'x-kassa-actor'?: string }): string => headers['x-kassa-actor'] ?? DEFAULT_ADMIN_ACTOR;

/**
 * The support desk's surcharge API (spec §1.7, DESIGN.md §7), under `/admin/v1/merchants/{merchantId}/surcharge`:
 * GET the settings, PUT `{enabled: true, rules}` to enable, DELETE to disable, GET `/audit` for the audit log.
 * Authenticated by `KASSA_ADMIN_TOKEN` (`adminAuth`) before anything else, so an unauthenticated caller learns
 * nothing about merchants or request shapes. Changes are attributed to `x-kassa-actor` (≤ 100 chars) or `admin-api`.
 */
export async function adminSurchargeRoutes(fastify: FastifyInstance, opts: AdminSurchargeRoutesOptions) {
  const { surcharge, adminToken } = opts;
  if (!adminToken) return;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onRequest', adminAuth(adminToken));

  const path = '/admin/v1/merchants/:merchantId/surcharge';
  const tags = ['admin'];

  app.get(
    path,
    { schema: { summary: "A merchant's surcharge settings", tags, params: MerchantParamsSchema } },
    async (request) => {
      const { merchantId } = request.params;
      return settingsBody(merchantId, await surcharge.get(merchantId));
    },
  );

  app.put(
    path,
    {
      schema: {
        summary: 'Enable surcharging with these fee rules',
        tags,
        params: MerchantParamsSchema,
        headers: ActorHeadersSchema,
        body: PutSurchargeBodySchema,
      },
    },
    async (request) => {
      const { merchantId } = request.params;
      const { body } = request;
      if (body.enabled !== true) {
        throw validationError([{ field: 'enabled', message: `must be true; DELETE ${request.url} disables` }]);
      }
      const change = await surcharge.enable(merchantId, body.rules, actorOf(request.headers));
      return settingsBody(merchantId, change.settings);
    },
  );

  app.delete(
    path,
    {
      schema: {
        summary: 'Disable surcharging (the rules are kept)',
        tags,
        params: MerchantParamsSchema,
        headers: ActorHeadersSchema,
      },
    },
    async (request) => {
      const { merchantId } = request.params;
      const change = await surcharge.disable(merchantId, actorOf(request.headers));
      return settingsBody(merchantId, change.settings);
    },
  );

  app.get(
    `${path}/audit`,
    {
      schema: { summary: 'Audit log of surcharge settings changes, oldest first', tags, params: MerchantParamsSchema },
    },
    async (request) => {
      const { merchantId } = request.params;
      return { merchantId, entries: (await surcharge.listAudit(merchantId)).map(auditBody) };
    },
  );
}

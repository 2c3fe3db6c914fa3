import { userInfo } from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import { type Config, ConfigError, describeConfig, loadConfig } from '../config/config.js';
import { loadRuntimeSecrets, type RuntimeSecrets } from '../config/data-dir.js';
import { KassaError } from '../domain/errors/error-catalogue.js';
import { MAX_WEBHOOK_SECRET_OVERLAP_SECONDS } from '../domain/merchants/merchant-service.js';
import { describeSurchargeAudit, describeSurchargeSettings, parseFeeRule } from '../domain/surcharge/fee-rule-text.js';
import type { FeeRule } from '../domain/surcharge/surcharge-settings.js';
import { buildServices, type Services } from '../services.js';
import { migrateTo, migrateToLatest } from '../storage/create-db.js';
import { migrations } from '../storage/migrations/index.js';
import { CliError } from './cli-failure.js';
import { openForCommand, openForMigration } from './command-database.js';

let environment: Record<string, string | undefined> = {};

// `serve` and `openapi` import the HTTP stack (app.ts: Fastify, its plugins, the routes and pages) when they run, so
// the one-shot commands load only the domain and storage (services.ts): a compiled `kassa merchant create` took 0.54 s
// instead of 0.64 s (through tsx 0.90 s instead of 1.05 s) on an idle machine.

function readConfig(): Config {
  try {
    return loadConfig(environment);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}

/**
 * Opens the database (without migrating it: openForCommand) and builds the services for a one-shot CLI command, then
 * closes.
 */
async function withServices<T>(work: (services: Services) => Promise<T>): Promise<T> {
  const config = readConfig();
  const db = await openForCommand(config);
  try {
    const secrets = await loadSecrets(config);
    return await work(buildServices(config, db, secrets));
  } finally {
    await db.close();
  }
}

/** The data dir's secrets; a data dir that cannot be created or read is named (KASSA_DATA_DIR) instead of traced. */
async function loadSecrets(config: Config): Promise<RuntimeSecrets> {
  try {
    return await loadRuntimeSecrets(config, { tls: false });
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new CliError(`cannot use the data dir ${config.dataDir} (KASSA_DATA_DIR): ${(error as Error).message}`, 1, {
      cause: error,
    });
  }
}

function upper(value: string): string {
  return value.toUpperCase();
}

const program = new Command('kassa').description('Kassa payment gateway').showHelpAfterError();

program
  .command('serve')
  .description('serve the HTTPS API (runs pending migrations first)')
  .action(async () => {
    const { serve } = await import('../server/serve.js');
    await serve(readConfig());
  });

program
  .command('migrate')
  .description('bring the database schema up to date')
  .option(
    '--to <migration>',
    'migrate up or down to this migration instead (its name): before starting an earlier release, the last one it knows',
  )
  .action(async (options: { to?: string }) => {
    const config = readConfig();
    const target = options.to;
    if (target === undefined) {
      let applied: string[] = [];
      const db = await openForMigration(config, async (opened) => {
        applied = await migrateToLatest(opened);
      });
      await db.close();
      for (const name of applied) console.log(`applied: ${name}`);
      console.log(`database (${config.database.dialect}) is at the latest migration`);
      return;
    }
    if (!Object.hasOwn(migrations, target)) {
      console.error(`no migration ${target}; the migrations are:\n${Object.keys(migrations).join('\n')}`);
      process.exit(2);
    }
    let steps: { name: string; direction: 'Up' | 'Down' }[] = [];
    const db = await openForMigration(config, async (opened) => {
      steps = await migrateTo(opened, target);
    });
    await db.close();
    for (const step of steps) console.log(`${step.direction === 'Up' ? 'applied' : 'undone'}: ${step.name}`);
    console.log(`database (${config.database.dialect}) is at migration ${target}`);
  });

program
  .command('openapi')
  .description('print the OpenAPI description of the API (JSON), as served at /openapi.json')
  .action(async () => {
    const { buildOpenApiDocument } = await import('../server/openapi-document.js');
    console.log(JSON.stringify(await buildOpenApiDocument(), null, 2));
  });

program
  .command('config')
  .description('print the effective configuration, secrets masked')
  .action(() => console.log(JSON.stringify(describeConfig(readConfig()), null, 2)));

const merchant = program.command('merchant').description('merchant profiles and credentials');

merchant
  .command('create')
  .description('create a merchant and print its first API key and webhook secret')
  .requiredOption('--id <merchantId>', 'merchant id (letters, digits, . _ -)')
  .requiredOption('--country <code>', 'ISO 3166-1 alpha-2 country', upper)
  .requiredOption('--currency <code>', 'ISO 4217 currency', upper)
  .option('--name <name>', 'display name shown on hosted pages')
  .option('--sandbox', 'sandbox merchant: notifications may go to http and loopback URLs', false)
  .option('--webhook-url <url>', 'default notification URL')
  .option('--json', 'print JSON')
  .action(async (opts) => {
    const created = await withServices((s) =>
      s.merchants.createMerchant({
        merchantId: opts.id,
        name: opts.name,
        country: opts.country,
        currency: opts.currency,
        sandbox: Boolean(opts.sandbox),
        webhookUrl: opts.webhookUrl,
      }),
    );
    const out = {
      merchantId: created.merchant.merchantId,
      apiKey: created.apiKey,
      webhookSecret: created.merchant.webhookSecret,
    };
    if (opts.json) console.log(JSON.stringify({ ...out, keyId: created.keyId }));
    else
      console.log(
        `merchantId:    ${out.merchantId}\nkeyId:         ${created.keyId}\napiKey:        ${out.apiKey}\nwebhookSecret: ${out.webhookSecret}`,
      );
  });

merchant
  .command('set')
  .description('change a merchant setting')
  .argument('<merchantId>')
  .option('--webhook-url <url>', 'default notification URL ("" clears it)')
  .action(async (merchantId: string, opts, command: Command) => {
    if (opts.webhookUrl === undefined) command.error('error: nothing to set: give --webhook-url');
    await withServices((s) => s.merchants.setWebhookUrl(merchantId, opts.webhookUrl || undefined));
    console.log(`merchant ${merchantId} updated`);
  });

const key = merchant.command('key').description('API keys');
key
  .command('rotate')
  .description('issue a new API key (old keys stay valid until revoked)')
  .argument('<merchantId>')
  .option('--json', 'print JSON')
  .action(async (merchantId: string, opts) => {
    const issued = await withServices((s) => s.merchants.rotateApiKey(merchantId));
    if (opts.json) console.log(JSON.stringify({ merchantId, ...issued }));
    else console.log(`keyId:  ${issued.keyId}\napiKey: ${issued.apiKey}`);
  });
key
  .command('list')
  .description("the merchant's API keys, oldest first: keyId, created, revoked (the keys themselves are not kept)")
  .argument('<merchantId>')
  .option('--json', 'print JSON')
  .action(async (merchantId: string, opts) => {
    const keys = await withServices((s) => s.merchants.listApiKeys(merchantId));
    const rows = keys.map((k) => ({
      keyId: k.keyId,
      creationDate: k.creationDate.toISOString(),
      ...(k.revokedAt && { revokedAt: k.revokedAt.toISOString() }),
    }));
    if (opts.json) console.log(JSON.stringify({ merchantId, keys: rows }));
    else
      for (const r of rows)
        console.log(`${r.keyId}  created ${r.creationDate}  ${r.revokedAt ? `revoked ${r.revokedAt}` : 'active'}`);
  });
key
  .command('revoke')
  .description('revoke an API key; its access tokens stop working at once')
  .argument('<merchantId>')
  .argument('<keyId>')
  .action(async (merchantId: string, keyId: string) => {
    const left = await withServices(async (s) => {
      await s.merchants.revokeApiKey(merchantId, keyId);
      return (await s.merchants.listApiKeys(merchantId)).filter((k) => k.revokedAt === undefined).length;
    });
    console.log(`key ${keyId} of ${merchantId} revoked`);
    // Revoking the last key is allowed (a leaked key must go at once) but locks the merchant's integrations out.
    if (left === 0) {
      console.error(
        `warning: ${merchantId} has no active API key left; its integrations are refused until \`kassa merchant key rotate ${merchantId}\` issues one`,
      );
    }
  });

/** `--keep-previous <hours>`: whole hours, 0 to MAX_WEBHOOK_SECRET_OVERLAP_SECONDS. */
function parseKeepPreviousHours(value: string): number {
  const max = MAX_WEBHOOK_SECRET_OVERLAP_SECONDS / 3600;
  if (!/^\d{1,4}$/.test(value) || Number(value) > max) {
    throw new InvalidArgumentError(`must be whole hours from 0 to ${max}`);
  }
  return Number(value);
}

const webhookSecret = merchant
  .command('webhook-secret')
  .description('the Standard Webhooks secret notifications are signed with');
webhookSecret
  .command('rotate')
  .description(
    'issue a new webhook secret, in force at once; the old one keeps signing beside it for --keep-previous hours ' +
      '(each notification then carries both signatures), so receivers can switch without losing one',
  )
  .argument('<merchantId>')
  .option(
    '--keep-previous <hours>',
    'hours the old secret keeps signing, 0 (a leaked secret) to 168',
    parseKeepPreviousHours,
    24,
  )
  .option('--json', 'print JSON')
  .action(async (merchantId: string, opts: { keepPrevious: number; json?: boolean }) => {
    const rotated = await withServices((s) => s.merchants.rotateWebhookSecret(merchantId, opts.keepPrevious * 3600));
    const previousExpiresAt = rotated.previousExpiresAt?.toISOString();
    if (opts.json) console.log(JSON.stringify({ merchantId, webhookSecret: rotated.webhookSecret, previousExpiresAt }));
    else {
      console.log(`webhookSecret: ${rotated.webhookSecret}`);
      console.log(
        previousExpiresAt
          ? `the previous secret also signs until ${previousExpiresAt}`
          : 'the previous secret no longer signs',
      );
    }
  });

/** Audit actor of CLI changes: `cli:<os user>` (DESIGN.md §7). */
function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli:unknown'; // no passwd entry for this uid (some containers)
  }
}

function collectRule(value: string, previous: FeeRule[] | undefined): FeeRule[] {
  try {
    return [...(previous ?? []), parseFeeRule(value)];
  } catch (error) {
    if (error instanceof KassaError) throw new InvalidArgumentError(error.message);
    throw error;
  }
}

const surcharge = merchant
  .command('surcharge')
  .description('card surcharge settings (DESIGN.md §7); every change is audited');
surcharge
  .command('enable')
  .description('enable surcharging with these fee rules (replacing any rules the merchant had)')
  .argument('<merchantId>')
  .requiredOption(
    '--rule <rule>',
    'fee rule, repeatable: brand=VISA|MASTERCARD|*,reason=COMMERCIAL_CARD|NON_EEA_CARD[,percentageBps=N][,fixed=N][,max=N] (basis points, minor units)',
    collectRule,
  )
  .option('--actor <name>', 'who makes the change, for the audit log', cliActor())
  .option('--json', 'print JSON')
  .action(async (merchantId: string, opts: { rule: FeeRule[]; actor: string; json?: boolean }) => {
    const change = await withServices((s) => s.surcharge.enable(merchantId, opts.rule, opts.actor));
    if (opts.json) console.log(JSON.stringify({ merchantId, ...change.settings }));
    else console.log(`surcharging of ${merchantId} ${describeSurchargeSettings(change.settings)}`);
  });
surcharge
  .command('disable')
  .description('disable surcharging (the fee rules are kept)')
  .argument('<merchantId>')
  .option('--actor <name>', 'who makes the change, for the audit log', cliActor())
  .action(async (merchantId: string, opts: { actor: string }) => {
    await withServices((s) => s.surcharge.disable(merchantId, opts.actor));
    console.log(`surcharging of ${merchantId} disabled`);
  });
surcharge
  .command('show')
  .description('print the surcharge settings and their audit log')
  .argument('<merchantId>')
  .option('--json', 'print JSON')
  .action(async (merchantId: string, opts: { json?: boolean }) => {
    const [settings, audit] = await withServices((s) =>
      Promise.all([s.surcharge.get(merchantId), s.surcharge.listAudit(merchantId)]),
    );
    if (opts.json) console.log(JSON.stringify({ merchantId, ...settings, audit }));
    else
      console.log(
        `surcharging of ${merchantId} ${describeSurchargeSettings(settings)}\naudit log:\n${describeSurchargeAudit(audit)}`,
      );
  });

const keys = program.command('keys').description('the card vault keys (PCI DSS 3.6): rotation, status, retirement');
keys
  .command('rotate')
  .description(
    'add a card vault key (active at once on every node), re-encrypt stored cards under it while the gateway keeps serving, retire unused old keys',
  )
  .option('--json', 'print JSON')
  .action(async (opts: { json?: boolean }) => {
    const result = await withServices((s) => s.storedCards.rotateKeys());
    if (opts.json) console.log(JSON.stringify(result));
    else
      console.log(
        `card key ${result.keyId} is active; ${result.moved} encrypted cards moved to it; ` +
          (result.retired.length > 0
            ? `retired keys: ${result.retired.join(', ')}`
            : 'old keys are retired by the serving nodes once unused for 10 minutes'),
      );
  });
keys
  .command('status')
  .description('list the card vault keys and what each still encrypts')
  .option('--json', 'print JSON')
  .action(async (opts: { json?: boolean }) => {
    const status = await withServices((s) => s.storedCards.keyStatus());
    if (opts.json) console.log(JSON.stringify(status));
    else
      for (const k of status)
        console.log(
          `key ${k.keyId}  created ${k.createdAt.toISOString()}  ${k.active ? 'ACTIVE ' : k.retiredAt ? `RETIRED ${k.retiredAt.toISOString()}` : 'DECRYPT-ONLY'}  stored cards ${k.storedCards}  cards of payments in progress ${k.pendingCards}`,
        );
  });
keys
  .command('retire')
  .description('retire (erase) superseded keys that nothing is encrypted under any more')
  .action(async () => {
    const retired = await withServices((s) => s.storedCards.retireKeys());
    console.log(retired.length > 0 ? `retired keys: ${retired.join(', ')}` : 'no key to retire');
  });

const cards = program.command('cards').description("merchants' stored cards (support desk)");
cards
  .command('show')
  .description('show a stored card (never its number)')
  .argument('<merchantId>')
  .argument('<pseudoCardNumber>')
  .action(async (merchantId: string, pseudo: string) => {
    const card = await withServices((s) => s.storedCards.get(merchantId, pseudo));
    console.log(JSON.stringify(card, null, 2));
  });
cards
  .command('delete')
  .description('delete a stored card: its encrypted number is erased; later payments with it fail (20050002)')
  .argument('<merchantId>')
  .argument('<pseudoCardNumber>')
  .action(async (merchantId: string, pseudo: string) => {
    await withServices((s) => s.storedCards.delete(merchantId, pseudo));
    console.log(`stored card ${pseudo} of ${merchantId} deleted`);
  });

/**
 * The `kassa` command line (DESIGN.md §1): `serve`, `migrate`, `openapi`, `config`, `merchant …`, reading its
 * settings from `env` (the process environment, passed in by the entry).
 */
export function kassaProgram(env: Record<string, string | undefined>): Command {
  environment = env;
  return program;
}

import { afterAll, describe, expect, it } from 'vitest';
import { CliError, describeFailure } from '../../src/cli/cli-failure.js';
import { ConfigError } from '../../src/config/config.js';
import { cliDataEnv, kassaCliResult, removeCliDataDirs } from '../helpers/cli.js';

afterAll(removeCliDataDirs);

/** A closed port on loopback: nothing listens on port 1. */
const UNREACHABLE = 'postgres://kassa:s3cret-pa55word@127.0.0.1:1/kassa';
/** A line of a stack trace (`    at fn (file:line:col)`). */
const TRACE_LINE = /^\s+at /m;

describe('describeFailure (what `kassa` prints when a command fails)', () => {
  it.each([
    [new CliError('the database is behind'), 'the database is behind', 1],
    [new ConfigError(['KASSA_PORT: must be an integer']), 'KASSA_PORT: must be an integer', 2],
    [
      new Error('EACCES: permission denied'),
      'kassa: EACCES: permission denied (LOG_LEVEL=debug prints the stack trace)',
      1,
    ],
  ])('%s is printed without a stack trace', (error, text, exitCode) => {
    const described = describeFailure(error, 'info');
    expect(described.text).toContain(text);
    expect(described.text).not.toMatch(TRACE_LINE);
    expect(described.exitCode).toBe(exitCode);
  });

  it('LOG_LEVEL=debug adds the stack trace of an unexpected error', () => {
    expect(describeFailure(new Error('boom'), 'debug').text).toMatch(TRACE_LINE);
  });
});

describe('kassa commands fail in one line on stderr, without a stack trace', () => {
  it.each([[['migrate']], [['merchant', 'key', 'list', 'shop-1']], [['keys', 'status']]])(
    '%j on a database Kassa cannot reach names DATABASE_URL, its password masked',
    async (args) => {
      const r = await kassaCliResult(args, { ...cliDataEnv('kassa-fail-'), DATABASE_URL: UNREACHABLE });
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toMatch(
        /^cannot open the database at DATABASE_URL=postgres:\/\/kassa:\*\*\*@127\.0\.0\.1:1\/kassa: ECONNREFUSED/,
      );
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout + r.stderr).not.toContain('s3cret-pa55word');
    },
    60_000,
  );

  it('`merchant set` without a setting says what to give, without a stack trace', async () => {
    const r = await kassaCliResult(['merchant', 'set', 'shop-1'], cliDataEnv('kassa-fail-'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: nothing to set: give --webhook-url$/m);
    expect(r.stderr).not.toMatch(TRACE_LINE);
    expect(r.stderr).not.toContain('InvalidArgumentError');
  });
});

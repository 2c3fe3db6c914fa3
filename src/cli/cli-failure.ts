import { ConfigError } from '../config/config.js';
import { KassaError } from '../domain/errors/error-catalogue.js';

/**
 * A command that cannot go on for a reason the operator can act on (the database unreachable, its schema behind this
 * release, the data dir not writable): its message is the whole story, printed as it is, without a stack trace.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** Log levels at which an unexpected error's stack trace is printed too (LOG_LEVEL, pino's names). */
const TRACING_LEVELS = new Set(['debug', 'trace']);

/**
 * What `kassa` prints on stderr when a command fails, and its exit code: a rule violation as `error CODE: message`
 * with its fields, a bad setting as the config loader names it (exit 2), an operator-facing CliError as its message,
 * anything else as one line whose stack trace only LOG_LEVEL=debug or trace adds (README: "a bad value stops start-up
 * with a message naming it", not with a trace).
 */
export function describeFailure(error: unknown, logLevel: string | undefined): { text: string; exitCode: number } {
  if (error instanceof KassaError) {
    const fields = error.errors?.map((e) => `\n  ${e.field}: ${e.message}`).join('') ?? '';
    return { text: `error ${error.code}: ${error.message}${fields}`, exitCode: 1 };
  }
  if (error instanceof ConfigError) return { text: error.message, exitCode: 2 };
  if (error instanceof CliError) return { text: error.message, exitCode: error.exitCode };
  const message = error instanceof Error ? error.message : String(error);
  if (logLevel !== undefined && TRACING_LEVELS.has(logLevel) && error instanceof Error && error.stack) {
    return { text: `kassa: ${error.stack}`, exitCode: 1 };
  }
  return { text: `kassa: ${message} (LOG_LEVEL=debug prints the stack trace)`, exitCode: 1 };
}

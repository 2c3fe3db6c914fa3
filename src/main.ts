import { kassaProgram } from './cli/program.js';
import { KassaError } from './domain/errors/error-catalogue.js';

// The `kassa` entry (bin/kassa.js): the commands live in cli/, the server's lifecycle in server/.
try {
  await kassaProgram(process.env).parseAsync(process.argv);
} catch (error) {
  if (error instanceof KassaError) {
    const fields = error.errors?.map((e) => `\n  ${e.field}: ${e.message}`).join('') ?? '';
    console.error(`error ${error.code}: ${error.message}${fields}`);
    process.exit(1);
  }
  throw error;
}

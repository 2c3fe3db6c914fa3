import { describeFailure } from './cli/cli-failure.js';
import { kassaProgram } from './cli/program.js';

// The `kassa` entry (bin/kassa.js): the commands live in cli/, the server's lifecycle in server/.
try {
  await kassaProgram(process.env).parseAsync(process.argv);
} catch (error) {
  const { text, exitCode } = describeFailure(error, process.env.LOG_LEVEL);
  console.error(text);
  process.exit(exitCode);
}

/** `npm run bench`: runs every benchmark in turn and prints its figures. */
import { runPaymentsBench } from './payments.bench.js';

await runPaymentsBench();

#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so `npm ci` leaves `npx kassa …` working without a build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { AreaSummary } from './summary.js';

declare module 'vitest' {
  export interface ProvidedContext {
    reliabilitySummaryFile: string;
  }
}

/** Gives the suite a file for its summaries and prints one line per area when the run ends. */
export default function setup(project: TestProject): () => void {
  const file = join(mkdtempSync(join(tmpdir(), 'kassa-reliability-')), 'summary.jsonl');
  project.provide('reliabilitySummaryFile', file);
  return () => {
    let lines: AreaSummary[] = [];
    try {
      lines = readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as AreaSummary);
    } catch {
      // no area finished
    }
    console.log('\nreliability summary');
    for (const s of lines) {
      console.log(
        `  ${s.area}: tried ${s.tried}, failures ${s.failures}, data lost ${s.dataLost}${s.note ? ` (${s.note})` : ''}`,
      );
    }
  };
}

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCallgrindHeader, readCallgrindDump } from '../../bench/callgrind.js';

/** The head of a file `callgrind_control -d` writes with --separate-threads=yes (valgrind 3.19). */
const dump = (thread: number, summary: number) =>
  `# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 8218\ncmd:  /usr/bin/node server.js\npart: 1\n` +
  `thread: ${thread}\n\n\ndesc: I1 cache: \ndesc: Timerange: Basic block 0 - 307411933\ndesc: Trigger: dump\n\n` +
  `positions: line\nevents: Ir\nsummary: ${summary}\n\n\nfl=(1) ???\nfn=(1) 0x000000000d24c380\n0 12\n\ntotals: ${summary}\n`;

describe('callgrind dumps (bench:instructions)', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads the thread number and the summary of instructions', () => {
    expect(parseCallgrindHeader(dump(12, 471_000_000))).toEqual({ thread: 12, instructions: 471_000_000 });
    expect(() => parseCallgrindHeader('# callgrind format\nversion: 1\n')).toThrow(/thread and summary/);
  });

  it('reads the dump of part 1 only, threads that ran nothing left out, by thread number', () => {
    dir = mkdtempSync(join(tmpdir(), 'callgrind-test-'));
    writeFileSync(join(dir, 'cg.out.1-13'), dump(13, 7_000));
    writeFileSync(join(dir, 'cg.out.1-01'), dump(1, 1_316_964_704));
    writeFileSync(join(dir, 'cg.out.1-02'), dump(2, 0));
    writeFileSync(join(dir, 'cg.out-01'), dump(1, 99)); // the exit dump, part 2 in valgrind's numbering
    expect(readCallgrindDump(dir, 'cg.out')).toEqual([
      { thread: 1, instructions: 1_316_964_704 },
      { thread: 13, instructions: 7_000 },
    ]);
    expect(() => readCallgrindDump(dir as string, 'other.out')).toThrow(/no callgrind dump/);
  });
});

/**
 * CPU time spent by the processes under measurement, read from Linux's /proc (issue 12: where a payment's CPU goes).
 * It names the bottleneck: a main thread near one core's worth of CPU per wall second is saturated, whatever the load
 * generator reports, and one well below its usual ran while the machine took the CPU away. On this shared 2-core
 * machine the CPU a request costs drifts too (the same build: 897 and 2,875 µs per PostgreSQL DIRECT payment in two
 * runs, docs/decisions.md), so compare parts within one phase, not figures across runs.
 *
 * Everything is in microseconds of CPU (user + system, at the kernel's clock-tick resolution: 10 ms per tick summed
 * over a whole phase). Off Linux (no /proc) every reading is undefined and the bench prints no CPU columns.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Microseconds per clock tick: USER_HZ is 100 on every Linux architecture Node.js supports. */
const US_PER_TICK = 10_000;

/** CPU a process has used so far, µs: its main (event-loop) thread, and all its threads together. */
export interface ProcessCpu {
  mainUs: number;
  allUs: number;
}

/** utime + stime of one /proc stat line, plus cutime + cstime (children waited for) when `withChildren`, in ticks. */
function ticks(stat: string, withChildren: boolean): number {
  // The command name (field 2) may hold spaces and parentheses: the fields after it start behind the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17.
  const own = Number(fields[11]) + Number(fields[12]);
  return withChildren ? own + Number(fields[13]) + Number(fields[14]) : own;
}

/** The CPU `pid` has used so far (its main thread is the thread whose id is the pid), or undefined off Linux. */
export function processCpu(pid: number): ProcessCpu | undefined {
  try {
    let all = 0;
    let main = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const t = ticks(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'), false);
      all += t;
      if (Number(tid) === pid) main = t;
    }
    return { mainUs: main * US_PER_TICK, allUs: all * US_PER_TICK };
  } catch {
    return undefined;
  }
}

/**
 * The CPU every process named `postgres` on this machine has used so far, µs, counting the backends that have
 * exited (they are in the postmaster's cutime/cstime once it has waited for them), or undefined when none is visible
 * (PostgreSQL elsewhere, or not Linux). Only meaningful for a PostgreSQL on this machine that serves nothing else
 * during the phase.
 */
export function postgresCpuUs(): number | undefined {
  let total = 0;
  let seen = false;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      total += ticks(readFileSync(`/proc/${pid}/stat`, 'utf8'), true);
      seen = true;
    } catch {
      // the process ended between the listing and the read
    }
  }
  return seen ? total * US_PER_TICK : undefined;
}

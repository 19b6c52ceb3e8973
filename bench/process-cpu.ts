import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/PID/stat's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, every thread) another process has used so far, ms (Linux /proc/PID/stat;
 * NaN elsewhere): read from outside, so watching a process does not disturb it.
 */
export function processCpuMs(pid: number): number {
  return cpuMsOf(`/proc/${pid}/stat`);
}

/** The same for the process's main thread alone (its event loop; worker threads excluded). */
export function mainThreadCpuMs(pid: number): number {
  return cpuMsOf(`/proc/${pid}/task/${pid}/stat`);
}

function cpuMsOf(statFile: string): number {
  try {
    const stat = readFileSync(statFile, 'utf8');
    // The fields after the command name (in parentheses, which may hold spaces): utime is the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

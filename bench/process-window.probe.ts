import { readFileSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** What a process did since the previous reading (see ProcessWindowProbe). */
export interface ProcessWindow {
  /** CPU time (user + system, all threads), ms. */
  cpuMs: number;
  eventLoopDelayMaxMs: number;
  eventLoopDelayP99Ms: number;
  rss: number;
}

const DELAY_RESOLUTION_MS = 10;

/**
 * CPU time and event-loop delay of THIS process over windows: each read() reports what happened since
 * the previous one and starts the next window. The bare relay's process answers the bench with it
 * (the service process has the same figures through TestAppProcess.stats()).
 */
export class ProcessWindowProbe {
  private readonly delay = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
  private cpu = process.cpuUsage();

  constructor() {
    this.delay.enable();
  }

  read(): ProcessWindow {
    const cpu = process.cpuUsage(this.cpu);
    const window: ProcessWindow = {
      cpuMs: (cpu.user + cpu.system) / 1000,
      eventLoopDelayMaxMs: this.delay.max / 1e6,
      eventLoopDelayP99Ms: this.delay.percentile(99) / 1e6,
      rss: process.memoryUsage.rss(),
    };
    this.cpu = process.cpuUsage();
    this.delay.reset();
    return window;
  }
}

/**
 * Starts a new peak-RSS window for another process of the same user (Linux: writing 5 to
 * /proc/PID/clear_refs resets VmHWM to the current RSS). False where that is not possible.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return /VmHWM/.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Setup module of the overhead bench's service process (TestAppProcessOptions.setupModule): installs
 * ReceiptTimingIoAdapter and notes, for each `ai:chat` event, when Socket.IO decoded it and when the
 * upstream request that followed had been written (undici's diagnostics channel), with the process's
 * CPU time at both moments. Times are monotonicMs() (comparable with the bench process's). The records
 * stay in this process until the bench asks for them between two requests (`{ serviceTimings: true }`),
 * so no IPC write falls inside a measured window; `{ clock: true }` answers this process's monotonicMs()
 * for the bench's clock check.
 */
import type { INestApplication } from '@nestjs/common';
import { monotonicMs } from './monotonic-clock';
import { ReceiptTimingIoAdapter } from './receipt-timing.io-adapter';
import { onUpstreamRequestSent } from './upstream-request-sent.probe';

export interface ServiceTiming {
  receivedAt: number;
  receivedCpu: NodeJS.CpuUsage;
  /** Absent when no upstream request was written after the event. */
  sentAt?: number;
  sentCpu?: NodeJS.CpuUsage;
}

let records: ServiceTiming[] = [];

export function beforeListen(app: INestApplication): void {
  app.useWebSocketAdapter(
    new ReceiptTimingIoAdapter(app, (event) => {
      if (event === 'ai:chat') records.push({ receivedAt: monotonicMs(), receivedCpu: process.cpuUsage() });
    }),
  );
  onUpstreamRequestSent(() => {
    const pending = records[records.length - 1];
    if (!pending || pending.sentAt !== undefined) return;
    pending.sentAt = monotonicMs();
    pending.sentCpu = process.cpuUsage();
  });
  process.on('message', (message: { serviceTimings?: boolean; clock?: boolean }) => {
    if (message?.clock) process.send?.({ clock: monotonicMs() });
    if (message?.serviceTimings) {
      process.send?.({ serviceTimings: records });
      records = [];
    }
  });
}

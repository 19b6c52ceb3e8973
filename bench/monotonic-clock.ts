/**
 * Milliseconds on the system's monotonic clock, comparable ACROSS processes of the same machine:
 * process.hrtime is libuv's uv_hrtime, clock_gettime(CLOCK_MONOTONIC) on Linux, whose origin is the
 * boot (not the process start, unlike performance.now()) and which NTP never steps. The overhead
 * bench checks this on every run (`clockCheck`: a child's reading always falls between the two
 * readings of a round trip). A double holds the nanoseconds exactly for 104 days of uptime.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

import { existsSync } from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The file a worker thread runs, beside the module that starts it (`<directory>/<name>.js` once
 * compiled, `.ts` from the sources), or null when this runtime cannot start it: from the sources
 * the process needs a TypeScript loader registered (a child process started with one, which its
 * threads inherit; not Jest, whose own module system a thread would not have), or the thread one in
 * its own `execArgv` (`withLoader`). Callers then do the work in their own thread.
 */
export function workerThreadEntry(
  directory: string,
  name: string,
  extension: string,
  withLoader = false,
): string | null {
  const entry = path.join(directory, `${name}${extension}`);
  if (!existsSync(entry)) return null;
  const loaders = (Module as unknown as { _extensions: Record<string, unknown> })._extensions;
  return extension === '.js' || withLoader || extension in loaders ? entry : null;
}

/** The nice value of background threads: the service's event loop goes first when they compete for a core. */
const BACKGROUND_NICE = 10;

/**
 * Called by a background thread on itself (the local embedding's: tens of seconds of CPU after a
 * large import, which no question waits for): on Linux a thread has its own
 * nice value (setpriority on the calling thread), so the service's main thread, which answers
 * requests, is scheduled before it on a busy machine. Elsewhere it would lower the whole process:
 * nothing is done.
 */
export function runAtBackgroundPriority(): void {
  if (process.platform !== 'linux') return;
  try {
    os.setPriority(BACKGROUND_NICE);
  } catch {
    // Not allowed here (a sandbox): the thread runs at the service's priority.
  }
}

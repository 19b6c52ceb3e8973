/**
 * Another service process for multi-instance tests: boots the real app with startTestApp (the
 * environment comes over IPC; give DATA_DIR to share a store), reports its URL, and closes (keeping
 * the data) when told to. Run with test/support/swc-register.js; see TestAppProcess.
 */
import { startTestApp } from './test-app';

process.once('message', (env: Record<string, string>) => {
  void (async () => {
    const app = await startTestApp(env);
    process.once('message', () => {
      void app.close({ keepData: true }).then(() => process.exit(0));
    });
    process.send?.({ url: app.url });
  })().catch((error: unknown) => {
    process.send?.({ error: error instanceof Error ? error.stack : String(error) });
    process.exit(1);
  });
});

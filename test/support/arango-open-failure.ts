import { Database } from 'arangojs';
import { resetLogSink, setLogSink } from '../../src/observability/logger';
import { closedPortUrl } from './fake-arango.server';

/** Opening a store adapter against a port nothing listens on fails, promptly, with `message` (not a hang). */
export async function expectOpenToFailWithoutServer(
  open: (db: Database) => Promise<unknown>,
  message: string,
): Promise<void> {
  setLogSink(() => undefined);
  const db = new Database({ url: await closedPortUrl(), databaseName: 'nodius' });
  try {
    await expect(open(db)).rejects.toThrow(message);
  } finally {
    db.close();
    resetLogSink();
  }
}

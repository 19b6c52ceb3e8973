import {
  arangoErrorReply,
  closedPortUrl,
  FakeArangoServer,
  startFakeArango,
} from '../../../test/support/fake-arango.server';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { ArangoConnectionError } from './arango-connection.error';
import { ArangoConnector, DEFAULT_ARANGO_RETRY } from './arango-connector';

const VERSION = { status: 200, body: { server: 'arango', version: '3.12.4', license: 'community' } };
const FAST_RETRY = { attempts: 3, initialDelayMs: 10, maxDelayMs: 15 };

describe(ArangoConnector.name, () => {
  let server: FakeArangoServer | undefined;
  const slept: number[] = [];
  const sleep = async (ms: number): Promise<void> => {
    slept.push(ms);
  };

  beforeEach(() => {
    slept.length = 0;
    setLogSink(() => undefined);
  });
  afterEach(async () => {
    resetLogSink();
    await server?.close();
    server = undefined;
  });

  function settings(url: string) {
    return { url, database: 'nodius', user: 'root', password: 'secret-password' };
  }

  it('waits about 30 s in 10 attempts by default, backing off from 0.5 s to 5 s', () => {
    const delays = ArangoConnector.delays(DEFAULT_ARANGO_RETRY);
    expect(delays).toEqual([500, 1000, 2000, 4000, 5000, 5000, 5000, 5000, 5000]);
    expect(delays.reduce((sum, delay) => sum + delay, 0)).toBe(32_500);
  });

  it('gives up on an unreachable server after the last attempt with a clear error', async () => {
    const url = await closedPortUrl();
    const attempt = new ArangoConnector(settings(url), FAST_RETRY, sleep).connect();
    await expect(attempt).rejects.toThrow(ArangoConnectionError);
    await expect(attempt).rejects.toThrow(new RegExp(`ArangoDB at ${url} is unreachable after 3 attempts over 0 s: `));
    expect(slept).toEqual([10, 15]);
  });

  it('keeps trying while the server answers 503 (still starting), then connects', async () => {
    let calls = 0;
    server = await startFakeArango(() => (++calls < 3 ? arangoErrorReply(503, 503, 'starting up') : VERSION));
    const db = await new ArangoConnector(settings(server.url), FAST_RETRY, sleep).connect();
    expect(server.requests.map((request) => request.path)).toEqual(Array(3).fill('/_db/nodius/_api/version'));
    expect(slept).toEqual([10, 15]);
    expect(server.requests[0].authorization).toBe(`Basic ${Buffer.from('root:secret-password').toString('base64')}`);
    db.close();
  });

  it('fails at once, naming the user but not the password, when the credentials are refused', async () => {
    server = await startFakeArango(() => arangoErrorReply(401, 11, 'not authorized to execute this request'));
    const attempt = new ArangoConnector(settings(server.url), FAST_RETRY, sleep).connect();
    await expect(attempt).rejects.toThrow(/refused the credentials of user "root"/);
    await expect(attempt).rejects.not.toThrow(/secret-password/);
    expect(server.requests).toHaveLength(1);
    expect(slept).toEqual([]);
  });

  it('fails at once when the user may not access the database (403, error 11): retrying cannot grant it', async () => {
    server = await startFakeArango(() => arangoErrorReply(403, 11, 'forbidden'));
    const attempt = new ArangoConnector(settings(server.url), FAST_RETRY, sleep).connect();
    await expect(attempt).rejects.toThrow(/user "root" or their access to database "nodius"/);
    expect(server.requests).toHaveLength(1);
    expect(slept).toEqual([]);
  });

  it('fails at once on a server error (500): only an unreachable or starting server is waited for', async () => {
    server = await startFakeArango(() => arangoErrorReply(500, 4, 'out of memory'));
    await expect(new ArangoConnector(settings(server.url), FAST_RETRY, sleep).connect()).rejects.toThrow(
      /answered unexpectedly: out of memory/,
    );
    expect(server.requests).toHaveLength(1);
    expect(slept).toEqual([]);
  });

  it('creates the database through _system when it does not exist yet', async () => {
    let created = false;
    server = await startFakeArango((request) => {
      if (request.method === 'POST' && request.path === '/_db/_system/_api/database') {
        created = true;
        return { status: 201, body: { error: false, code: 201, result: true } };
      }
      if (request.path.startsWith('/_db/nodius/') && !created) return arangoErrorReply(404, 1228, 'database not found');
      return VERSION;
    });
    const db = await new ArangoConnector(settings(server.url), FAST_RETRY, sleep).connect();
    expect(server.requests.find((request) => request.method === 'POST')?.body).toMatchObject({ name: 'nodius' });
    expect(server.requests.at(-1)?.path).toBe('/_db/nodius/_api/version');
    db.close();
  });

  it('fails clearly when the database is missing and the user may not create it', async () => {
    server = await startFakeArango((request) =>
      request.method === 'POST'
        ? arangoErrorReply(403, 11, 'forbidden')
        : arangoErrorReply(404, 1228, 'database not found'),
    );
    await expect(new ArangoConnector(settings(server.url), FAST_RETRY, sleep).connect()).rejects.toThrow(
      /Database "nodius" does not exist and user "root" cannot create it/,
    );
  });
});

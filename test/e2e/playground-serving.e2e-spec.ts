import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { PlaygroundModule } from '../../src/playground/playground.module';
import { startTestApp, TestApp } from '../support/test-app';

describe(`${PlaygroundModule.name} (serving /playground)`, () => {
  let assetsDir: string;
  const apps: TestApp[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const app = await startTestApp({ PLAYGROUND_DIR: assetsDir, ...env });
    apps.push(app);
    return app;
  };

  beforeAll(() => {
    // A stand-in for the built page: serving is tested here, the real bundle in the Chromium suite.
    assetsDir = mkdtempSync(path.join(tmpdir(), 'playground-assets-'));
    writeFileSync(
      path.join(assetsDir, 'index.html'),
      '<!doctype html><title>Playground</title><script src="./playground.js"></script>',
    );
    writeFileSync(path.join(assetsDir, 'playground.js'), 'console.log("playground")');
    writeFileSync(path.join(assetsDir, 'playground.js.map'), '{"version":3,"sources":["../src/playground.ts"]}');
  });
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });
  afterAll(() => rmSync(assetsDir, { recursive: true, force: true }));

  it('serves the page outside production, same-origin only, with its settings; unknown files and paths keep the JSON 404, Swagger stays', async () => {
    const app = await start();
    await request(app.url).get('/playground').expect(301).expect('location', '/playground/');
    const page = await request(app.url)
      .get('/playground/')
      .expect(200)
      .expect('content-type', /text\/html/);
    expect(page.text).toContain('<title>Playground</title>');
    expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['x-frame-options']).toBe('DENY');
    await request(app.url).get('/playground/playground.js.map').expect(200);
    await request(app.url)
      .get('/playground/playground.js')
      .expect(200)
      .expect('content-type', /javascript/);
    expect((await request(app.url).get('/playground/config.json').expect(200)).body).toEqual({ auth: 'none' });

    const missing = await request(app.url).get('/playground/nothing.js').expect(404);
    expect(missing.body).toMatchObject({ statusCode: 404, code: 'not_found' });
    expect((await request(app.url).get('/nowhere').expect(404)).body).toMatchObject({
      statusCode: 404,
      code: 'not_found',
    });
    await request(app.url).get('/docs-json').expect(200);
    await request(app.url).get('/health').expect(200);
  });

  it('tells the page when it must ask for a token', async () => {
    const app = await start({ AUTH_MODE: 'jwt', JWT_SECRET: 'a-secret-of-32-characters-or-so!' });
    expect((await request(app.url).get('/playground/config.json').expect(200)).body).toEqual({ auth: 'jwt' });
  });

  it('opens no route in production unless PLAYGROUND_ENABLED=true', async () => {
    const production = { NODE_ENV: 'production', AUTH_MODE: 'jwt', JWT_SECRET: 'a-secret-of-32-characters-or-so!' };
    const off = await start(production);
    expect((await request(off.url).get('/playground/').expect(404)).body).toMatchObject({ code: 'not_found' });
    await request(off.url).get('/playground/config.json').expect(404);

    const on = await start({ ...production, PLAYGROUND_ENABLED: 'true' });
    await request(on.url).get('/playground/').expect(200);
    // The client's source stays home in production: its maps are not served.
    expect((await request(on.url).get('/playground/playground.js.map').expect(404)).body).toMatchObject({
      code: 'not_found',
    });
  });

  it('serves nothing (and says why in the log) when the page was not built', async () => {
    const app = await start({ PLAYGROUND_DIR: path.join(assetsDir, 'absent') });
    await request(app.url).get('/playground/').expect(404);
  });
});

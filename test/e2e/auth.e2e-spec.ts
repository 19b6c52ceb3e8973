import jwt from 'jsonwebtoken';
import request from 'supertest';
import { TestApp, startTestApp } from '../support/test-app';

const SECRET = 'e2e-auth-secret-of-at-least-32-ch';

function bearer(claims: object, options: jwt.SignOptions = {}, key = SECRET): string {
  return `Bearer ${jwt.sign(claims, key, { expiresIn: 600, ...options })}`;
}

const viewer = bearer({ sub: 'viewer-1', workspace: 'default' });
const editor = bearer({ sub: 'editor-1', workspace: 'default', role: 'editor' });

describe('HTTP authentication (AUTH_MODE=jwt)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ AUTH_MODE: 'jwt', JWT_SECRET: SECRET });
  });
  afterAll(() => app.close());

  it('serves /health without a token', async () => {
    await request(app.url).get('/health').expect(200);
  });

  it('serves the OpenAPI document without a token and declares bearer authentication', async () => {
    const response = await request(app.url).get('/docs-json').expect(200);
    expect(response.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it.each([
    ['no token', undefined, 'Missing bearer token'],
    ['an expired token', bearer({ sub: 'u', workspace: 'default' }, { expiresIn: -5 }), 'Token expired'],
    [
      'a forged token',
      bearer({ sub: 'u', workspace: 'default' }, {}, 'forged-secret-of-at-least-32-chars'),
      'Invalid token',
    ],
    ['a token without workspace', bearer({ sub: 'u' }), 'Token lacks the sub or workspace claim'],
  ])('answers 401 to GET /api/graphs/:key with %s', async (_name, authorization, message) => {
    const call = request(app.url).get('/api/graphs/nba-workflow');
    if (authorization) call.set('Authorization', authorization);
    const response = await call.expect(401);
    expect(response.body).toEqual({ statusCode: 401, code: 'unauthorized', message });
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });

  it('lets a viewer read a graph of its workspace', async () => {
    const response = await request(app.url).get('/api/graphs/nba-workflow').set('Authorization', viewer).expect(200);
    expect(response.body.graph).toMatchObject({ _key: 'nba-workflow', workspace: 'default' });
    expect(response.body.nodes.length).toBeGreaterThan(0);
  });

  it('hides a graph of another workspace (404, not 403)', async () => {
    const outsider = bearer({ sub: 'viewer-1', workspace: 'globex', role: 'admin' });
    const response = await request(app.url).get('/api/graphs/nba-workflow').set('Authorization', outsider).expect(404);
    expect(response.body).toMatchObject({ statusCode: 404, code: 'not_found' });
  });

  it.each([
    ['a viewer', viewer],
    ['an editor', editor],
  ])('refuses PUT /api/graphs/:key to %s (admin only): 403 forbidden', async (_name, authorization) => {
    const response = await request(app.url)
      .put('/api/graphs/x')
      .set('Authorization', authorization)
      .send({ graph: {}, nodes: [], edges: [] })
      .expect(403);
    expect(response.body).toEqual({
      statusCode: 403,
      code: 'forbidden',
      message: 'This action requires the role admin',
    });
  });

  it("lets an admin import, into the admin's own workspace only", async () => {
    const exported = await request(app.url).get('/api/graphs/nba-workflow').set('Authorization', viewer).expect(200);
    const acmeAdmin = bearer({ sub: 'admin-1', workspace: 'acme', role: 'admin' });
    await request(app.url)
      .put('/api/graphs/nba-workflow')
      .set('Authorization', acmeAdmin)
      .send(exported.body)
      .expect(200);

    const acmeViewer = bearer({ sub: 'viewer-2', workspace: 'acme' });
    const imported = await request(app.url)
      .get('/api/graphs/nba-workflow')
      .set('Authorization', acmeViewer)
      .expect(200);
    expect(imported.body.graph.workspace).toBe('acme');
    expect(imported.body.nodes).toHaveLength(exported.body.nodes.length);
    const original = await request(app.url).get('/api/graphs/nba-workflow').set('Authorization', viewer).expect(200);
    expect(original.body.graph.workspace).toBe('default');
  });

  it('checks the token before the role on an admin route (401 without a token)', async () => {
    await request(app.url).put('/api/graphs/x').send({ graph: {}, nodes: [], edges: [] }).expect(401);
  });
});

describe('HTTP authentication (AUTH_MODE=none)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ AUTH_MODE: 'none' });
  });
  afterAll(() => app.close());

  it('serves every caller as the anonymous admin of the default workspace', async () => {
    const response = await request(app.url).get('/api/graphs/nba-workflow').expect(200);
    expect(response.body.graph).toMatchObject({ _key: 'nba-workflow', workspace: 'default' });
  });
});

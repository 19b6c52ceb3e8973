import { Controller, Get, HttpCode, INestApplication, Post, Put } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import jwt from 'jsonwebtoken';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import request from 'supertest';
import { AppConfigModule } from '../config/app-config.module';
import { loadAppConfig } from '../config/load-app-config';
import { HttpErrorFilter } from '../errors/http-error.filter';
import { LogEntry } from '../observability/log-entry';
import { resetLogSink, setLogSink } from '../observability/logger';
import { AuthModule } from './auth.module';
import { CurrentPrincipal } from './current-principal.decorator';
import { HttpAuthGuard } from './http-auth.guard';
import { Principal } from './principal';
import { Public } from './public.decorator';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimited } from './rate-limited.decorator';
import { RequireRole } from './require-role.decorator';

@Controller('probe')
class ProbeController {
  @Public()
  @Get('public')
  open(): { ok: true } {
    return { ok: true };
  }

  @Get('me')
  me(@CurrentPrincipal() principal: Principal): Principal {
    return principal;
  }

  @RequireRole('admin')
  @Put('admin')
  admin(): { ok: true } {
    return { ok: true };
  }

  @RateLimited()
  @Post('limited')
  @HttpCode(200)
  limited(@CurrentPrincipal() principal: Principal): Principal {
    return principal;
  }
}

const SECRET = 'guard-secret-of-at-least-32-chars';

async function probeApp(env: Record<string, string>): Promise<INestApplication> {
  const config = loadAppConfig({ NODE_ENV: 'test', LOG_LEVEL: 'error', ...env });
  const moduleRef = await Test.createTestingModule({
    imports: [AppConfigModule.forRoot(config), AuthModule],
    controllers: [ProbeController],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  app.useGlobalFilters(new HttpErrorFilter());
  // Listening once lets supertest send concurrent requests to the same server.
  await app.listen(0, '127.0.0.1');
  return app;
}

function bearer(claims: object, key: string = SECRET, options: jwt.SignOptions = {}): string {
  return `Bearer ${jwt.sign(claims, key, { expiresIn: 600, ...options })}`;
}

describe(AuthModule.name, () => {
  describe(HttpAuthGuard.name, () => {
    describe('AUTH_MODE=jwt with an HS256 secret', () => {
      let app: INestApplication;
      beforeAll(async () => {
        app = await probeApp({ AUTH_MODE: 'jwt', JWT_SECRET: SECRET, JWT_ISSUER: 'nodius' });
      });
      afterAll(() => app.close());

      it('lets @Public routes through without a token', async () => {
        await request(app.getHttpServer()).get('/probe/public').expect(200, { ok: true });
      });

      it('stores the principal for @CurrentPrincipal', async () => {
        const response = await request(app.getHttpServer())
          .get('/probe/me')
          .set('Authorization', bearer({ sub: 'u1', workspace: 'acme', role: 'editor' }, SECRET, { issuer: 'nodius' }))
          .expect(200);
        expect(response.body).toEqual({ userId: 'u1', workspace: 'acme', role: 'editor' });
      });

      it.each([
        ['no Authorization header', undefined, 'Missing bearer token'],
        ['a Basic header', 'Basic dXNlcjpwYXNz', 'Missing bearer token'],
        ['a malformed token', 'Bearer not.a.jwt', 'Invalid token'],
        [
          'a forged token',
          bearer({ sub: 'u', workspace: 'w' }, 'another-secret-of-32-characters!', { issuer: 'nodius' }),
          'Invalid token',
        ],
        [
          'an expired token',
          bearer({ sub: 'u', workspace: 'w' }, SECRET, { issuer: 'nodius', expiresIn: -5 }),
          'Token expired',
        ],
        [
          'a token from another issuer',
          bearer({ sub: 'u', workspace: 'w' }, SECRET, { issuer: 'elsewhere' }),
          'Invalid token',
        ],
        [
          'a token without workspace',
          bearer({ sub: 'u' }, SECRET, { issuer: 'nodius' }),
          'Token lacks the sub or workspace claim',
        ],
        [
          'an unknown role',
          bearer({ sub: 'u', workspace: 'w', role: 'root' }, SECRET, { issuer: 'nodius' }),
          'Token role is not recognised',
        ],
      ])('answers 401 unauthorized to %s', async (_name, authorization, message) => {
        const call = request(app.getHttpServer()).get('/probe/me');
        if (authorization) call.set('Authorization', authorization);
        const response = await call.expect(401);
        expect(response.body).toEqual({ statusCode: 401, code: 'unauthorized', message });
        expect(response.headers['www-authenticate']).toBe('Bearer');
      });

      it('gives each of many concurrent requests its own principal', async () => {
        const users = Array.from({ length: 40 }, (_, i) => `user-${i}`);
        const answers = await Promise.all(
          users.map((sub) =>
            request(app.getHttpServer())
              .get('/probe/me')
              .set('Authorization', bearer({ sub, workspace: 'acme' }, SECRET, { issuer: 'nodius' })),
          ),
        );
        expect(answers.map((answer) => answer.body.userId)).toEqual(users);
      });

      it('enforces @RequireRole with 403 forbidden', async () => {
        const viewer = bearer({ sub: 'u', workspace: 'w' }, SECRET, { issuer: 'nodius' });
        const response = await request(app.getHttpServer())
          .put('/probe/admin')
          .set('Authorization', viewer)
          .expect(403);
        expect(response.body).toEqual({
          statusCode: 403,
          code: 'forbidden',
          message: 'This action requires the role admin',
        });
        const admin = bearer({ sub: 'u', workspace: 'w', role: 'admin' }, SECRET, { issuer: 'nodius' });
        await request(app.getHttpServer()).put('/probe/admin').set('Authorization', admin).expect(200, { ok: true });
      });

      it('authenticates before checking the role (no token on an admin route is 401, not 403)', async () => {
        await request(app.getHttpServer()).put('/probe/admin').expect(401);
      });
    });

    describe('AUTH_MODE=jwt with an RSA public key', () => {
      const rsa = generateKeyPairSync('rsa', {
        modulusLength: 2048,
        publicKeyEncoding: { type: 'spki', format: 'pem' },
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      });
      let app: INestApplication;
      beforeAll(async () => {
        app = await probeApp({ AUTH_MODE: 'jwt', JWT_PUBLIC_KEY: rsa.publicKey.replace(/\n/g, '\\n') });
      });
      afterAll(() => app.close());

      it('accepts RS256 tokens signed by the private key', async () => {
        const authorization = bearer({ sub: 'u1', workspace: 'acme' }, rsa.privateKey, { algorithm: 'RS256' });
        await request(app.getHttpServer()).get('/probe/me').set('Authorization', authorization).expect(200);
      });

      it('refuses an HS256 token signed with the public key as the secret', async () => {
        const input = `${Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url')}.${Buffer.from(
          JSON.stringify({ sub: 'u1', workspace: 'acme', role: 'admin' }),
        ).toString('base64url')}`;
        const signature = createHmac('sha256', rsa.publicKey).update(input).digest('base64url');
        const response = await request(app.getHttpServer())
          .get('/probe/me')
          .set('Authorization', `Bearer ${input}.${signature}`)
          .expect(401);
        expect(response.body.code).toBe('unauthorized');
      });
    });

    it('verifies each app with its own keys when two apps share one process', async () => {
      const first = await probeApp({ AUTH_MODE: 'jwt', JWT_SECRET: 'first-secret-of-at-least-32-chars' });
      const second = await probeApp({ AUTH_MODE: 'jwt', JWT_SECRET: 'second-secret-of-at-least-32-char' });
      try {
        const forFirst = bearer({ sub: 'u', workspace: 'w' }, 'first-secret-of-at-least-32-chars');
        await request(first.getHttpServer()).get('/probe/me').set('Authorization', forFirst).expect(200);
        await request(second.getHttpServer()).get('/probe/me').set('Authorization', forFirst).expect(401);
      } finally {
        await Promise.all([first.close(), second.close()]);
      }
    });

    describe('AUTH_MODE=none', () => {
      let app: INestApplication;
      let logs: LogEntry[];
      beforeAll(async () => {
        logs = [];
        setLogSink((entry) => logs.push(entry));
        app = await probeApp({ AUTH_MODE: 'none', LOG_LEVEL: 'info' });
      });
      afterAll(async () => {
        await app.close();
        resetLogSink();
      });

      it('logs one auth_disabled warning at start', () => {
        const warnings = logs.filter((entry) => entry.event === 'auth_disabled');
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatchObject({ level: 'warn', scope: 'auth' });
      });

      it('treats every caller as the anonymous admin, token or not', async () => {
        const anonymous = { userId: 'anonymous', workspace: 'default', role: 'admin' };
        await request(app.getHttpServer()).get('/probe/me').expect(200, anonymous);
        await request(app.getHttpServer())
          .get('/probe/me')
          .set('Authorization', 'Bearer garbage')
          .expect(200, anonymous);
        await request(app.getHttpServer()).put('/probe/admin').expect(200);
      });
    });
  });

  describe(RateLimitGuard.name, () => {
    it('answers 429 rate_limit with Retry-After once a principal is over RATE_LIMIT_PER_MINUTE', async () => {
      const app = await probeApp({ AUTH_MODE: 'jwt', JWT_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '2' });
      try {
        const alice = bearer({ sub: 'alice', workspace: 'acme' });
        const server = app.getHttpServer();
        await request(server).post('/probe/limited').set('Authorization', alice).expect(200);
        await request(server).post('/probe/limited').set('Authorization', alice).expect(200);
        const refused = await request(server).post('/probe/limited').set('Authorization', alice).expect(429);
        expect(refused.body).toMatchObject({ statusCode: 429, code: 'rate_limit', retryable: true });
        expect(refused.body.details.retryAfterMs).toBeGreaterThan(29_000);
        expect(refused.body.details.retryAfterMs).toBeLessThanOrEqual(30_000);
        expect(refused.headers['retry-after']).toBe('30');

        // Another user of the same workspace, the same user in another workspace, and unlimited routes are unaffected.
        await request(server)
          .post('/probe/limited')
          .set('Authorization', bearer({ sub: 'bob', workspace: 'acme' }))
          .expect(200);
        await request(server)
          .post('/probe/limited')
          .set('Authorization', bearer({ sub: 'alice', workspace: 'beta' }))
          .expect(200);
        await request(server).get('/probe/me').set('Authorization', alice).expect(200);
      } finally {
        await app.close();
      }
    });

    it('counts nothing when RATE_LIMIT_PER_MINUTE=0', async () => {
      const app = await probeApp({ AUTH_MODE: 'jwt', JWT_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '0' });
      try {
        const alice = bearer({ sub: 'alice', workspace: 'acme' });
        for (let i = 0; i < 100; i += 1) {
          await request(app.getHttpServer()).post('/probe/limited').set('Authorization', alice).expect(200);
        }
      } finally {
        await app.close();
      }
    });
  });
});

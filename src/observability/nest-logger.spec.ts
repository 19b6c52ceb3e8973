import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import request from 'supertest';
import { LogEntry } from './log-entry';
import { configureLogging, resetLogSink, setLogSink } from './logger';
import { createNestLogger, httpRequestLogger } from './nest-logger';

@Controller()
class ProbeController {
  @Get('probe')
  probe(): { ok: boolean } {
    return { ok: true };
  }

  @Get('health')
  health(): { status: string } {
    return { status: 'ok' };
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

describe('nest-logger', () => {
  const entries: LogEntry[] = [];
  let app: INestApplication;

  beforeAll(async () => {
    configureLogging({ level: 'info' });
    setLogSink((entry) => entries.push(entry));
    app = await NestFactory.create(ProbeModule, { logger: createNestLogger() });
    app.use(httpRequestLogger());
    await app.init();
  });
  afterAll(async () => {
    await app.close();
    resetLogSink();
  });
  beforeEach(() => (entries.length = 0));

  it("routes Nest's own log calls into the JSON logger under scope nest", () => {
    const logger = createNestLogger();
    logger.log('Mapped {/probe, GET} route', 'RouterExplorer');
    logger.error('boom', 'Error: boom\n    at somewhere (file.ts:1:1)', 'ExceptionsHandler');
    expect(entries).toEqual([
      expect.objectContaining({
        level: 'info',
        scope: 'nest',
        context: 'RouterExplorer',
        message: 'Mapped {/probe, GET} route',
      }),
      expect.objectContaining({
        level: 'error',
        scope: 'nest',
        context: 'ExceptionsHandler',
        err: expect.objectContaining({ message: 'boom' }),
      }),
    ]);
  });

  it('logs each HTTP answer once, with its status and the secrets of its headers redacted', async () => {
    await request(app.getHttpServer())
      .get('/probe?x=1')
      .set('Authorization', 'Bearer secret-token')
      .set('Cookie', 'sid=1')
      .expect(200);
    const lines = entries.filter((entry) => entry.event === 'http_request');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'info',
        scope: 'nest',
        message: 'request completed',
        req: expect.objectContaining({
          method: 'GET',
          url: '/probe?x=1',
          headers: expect.objectContaining({ authorization: '[redacted]', cookie: '[redacted]' }),
        }),
        res: expect.objectContaining({ statusCode: 200 }),
        responseTime: expect.any(Number),
      }),
    ]);
    expect(JSON.stringify(entries)).not.toContain('secret-token');
  });

  it('logs an answer that no route gave too', async () => {
    await request(app.getHttpServer()).get('/nowhere').expect(404);
    expect(entries.filter((entry) => entry.event === 'http_request')).toEqual([
      expect.objectContaining({
        req: expect.objectContaining({ url: '/nowhere' }),
        res: expect.objectContaining({ statusCode: 404 }),
      }),
    ]);
  });

  it('does not log the probes scraped every few seconds', async () => {
    await request(app.getHttpServer()).get('/health').expect(200);
    expect(entries.filter((entry) => entry.event === 'http_request')).toEqual([]);
  });
});

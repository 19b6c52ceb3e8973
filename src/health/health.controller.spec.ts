import type { Response } from 'express';
import { HealthController } from './health.controller';
import { HealthReport, HealthService } from './health.service';

describe(HealthController.name, () => {
  async function statusFor(report: HealthReport): Promise<number> {
    const health = { check: async () => report } as unknown as HealthService;
    let status = 0;
    const response = { status: (code: number) => ((status = code), response) } as unknown as Response;
    await expect(new HealthController(health).check(response)).resolves.toBe(report);
    return status;
  }

  it('answers 200 when ready, also degraded (Redis down), and 503 when the store is down', async () => {
    const providers = {
      llm: { provider: 'offline', model: 'offline' },
      embeddings: { provider: 'local', model: 'local-hash-v1-512' },
    };
    expect(
      await statusFor({ status: 'ok', store: { status: 'up', kind: 'sqlite' }, uptimeSeconds: 1, ...providers }),
    ).toBe(200);
    const redisDown = { status: 'down' as const, detail: 'connect ECONNREFUSED' };
    expect(
      await statusFor({
        status: 'degraded',
        store: { status: 'up', kind: 'sqlite' },
        uptimeSeconds: 1,
        ...providers,
        redis: redisDown,
      }),
    ).toBe(200);
    expect(
      await statusFor({
        status: 'unavailable',
        store: { status: 'down', kind: 'sqlite' },
        uptimeSeconds: 1,
        ...providers,
      }),
    ).toBe(503);
  });
});

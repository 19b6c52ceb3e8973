import { GraphStore } from '../graph/graph-store';
import { HealthService } from './health.service';

describe(HealthService.name, () => {
  const storeWith = (health: GraphStore['health']) => ({ kind: 'arango', health }) as unknown as GraphStore;

  it('is ok while the store is up', async () => {
    const report = await new HealthService(storeWith(async () => ({ status: 'up', kind: 'arango' }))).check();
    expect(report).toEqual({ status: 'ok', store: { status: 'up', kind: 'arango' }, uptimeSeconds: expect.any(Number) });
  });

  it('is unavailable when the store reports itself down', async () => {
    const report = await new HealthService(storeWith(async () => ({ status: 'down', kind: 'arango', detail: 'ECONNREFUSED' }))).check();
    expect(report).toMatchObject({ status: 'unavailable', store: { status: 'down', detail: 'ECONNREFUSED' } });
  });

  it('is unavailable, naming the error, when the health check itself throws', async () => {
    const report = await new HealthService(storeWith(async () => Promise.reject(new Error('socket hang up')))).check();
    expect(report).toMatchObject({ status: 'unavailable', store: { status: 'down', kind: 'arango', detail: 'socket hang up' } });
  });
});

import { AppError } from '../../errors/app-error';
import { LogEntry } from '../../observability/log-entry';
import { resetLogSink, setLogSink } from '../../observability/logger';
import { GraphNode } from '../graph.types';
import { LiveGraphChanges } from './live-graph-changes';
import { LiveOverlayRegistry } from './live-overlay.registry';

const node = (key: string): GraphNode => ({ _key: key, graphKey: 'g', type: 'filter', sheet: '0', posX: 0, posY: 0 });
const upsert = (...keys: string[]): LiveGraphChanges => ({
  upsertNodes: keys.map(node),
  deleteNodes: [],
  upsertEdges: [],
  deleteEdges: [],
});

describe(LiveOverlayRegistry.name, () => {
  const logs: LogEntry[] = [];
  beforeAll(() => setLogSink((entry) => logs.push(entry)));
  afterAll(() => resetLogSink());
  beforeEach(() => (logs.length = 0));

  it('keeps one overlay per (workspace, graph) and none for graphs without changes', () => {
    const registry = new LiveOverlayRegistry();
    registry.apply('ws1', 'g', upsert('a'));
    expect(registry.get('ws1', 'g')?.nodes.has('a')).toBe(true);
    expect(registry.get('ws2', 'g')).toBeUndefined();
    expect(registry.get('ws1', 'other')).toBeUndefined();
    expect(registry.stats()).toEqual({ graphs: 1, entries: 1 });
  });

  it('refuses a change that would exceed the per-graph cap, leaving the overlay as it was', () => {
    const registry = new LiveOverlayRegistry({ maxEntriesPerGraph: 3 });
    registry.apply('ws', 'g', upsert('a', 'b'));
    let error: unknown;
    try {
      registry.apply('ws', 'g', upsert('a', 'c', 'd'));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('payload_too_large');
    expect((error as AppError).details).toEqual({ limit: 3, entries: 4 });
    expect([...(registry.get('ws', 'g')?.nodes.keys() ?? [])]).toEqual(['a', 'b']);
    registry.apply('ws', 'g', upsert('a', 'c'));
    expect(registry.stats().entries).toBe(3);
  });

  it('drops an overlay idle for longer than the TTL', () => {
    let now = 1_000;
    const registry = new LiveOverlayRegistry({ idleTtlMs: 100 }, () => now);
    registry.apply('ws', 'g', upsert('a'));
    now += 100;
    expect(registry.get('ws', 'g')).toBeDefined();
    now += 1;
    expect(registry.get('ws', 'g')).toBeUndefined();
    expect(registry.stats()).toEqual({ graphs: 0, entries: 0 });
    expect(logs.some((entry) => entry.event === 'live_overlay_expired')).toBe(true);
  });

  it('evicts the least recently changed overlays when the total cap is exceeded', () => {
    let now = 0;
    const registry = new LiveOverlayRegistry({ maxTotalEntries: 4 }, () => now);
    registry.apply('ws', 'old', upsert('a', 'b'));
    now = 1;
    registry.apply('ws', 'mid', upsert('a'));
    now = 2;
    registry.apply('ws', 'new', upsert('a', 'b'));
    expect(registry.get('ws', 'old')).toBeUndefined();
    expect(registry.get('ws', 'mid')).toBeDefined();
    expect(registry.get('ws', 'new')).toBeDefined();
    expect(registry.stats()).toEqual({ graphs: 2, entries: 3 });
    expect(logs.some((entry) => entry.event === 'live_overlay_evicted' && entry.graphKey === 'old')).toBe(true);
  });

  it('forgets saved keys and removes an overlay left empty; clear drops a whole graph', () => {
    const registry = new LiveOverlayRegistry();
    registry.apply('ws', 'g', upsert('a', 'b'));
    registry.forget('ws', 'g', ['a'], []);
    expect(registry.stats()).toEqual({ graphs: 1, entries: 1 });
    registry.forget('ws', 'g', ['b'], []);
    expect(registry.get('ws', 'g')).toBeUndefined();
    registry.apply('ws', 'g', upsert('c'));
    registry.clear('ws', 'g');
    expect(registry.stats()).toEqual({ graphs: 0, entries: 0 });
  });
});

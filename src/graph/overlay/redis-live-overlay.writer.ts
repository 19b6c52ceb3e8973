import { AppError } from '../../errors/app-error';
import { Logger } from '../../observability/logger';
import type { QuietRedis } from '../../redis/redis-client';
import type { RedisConnection } from '../../redis/redis-connection';
import { GraphChangeNotifier } from '../graph-change.notifier';
import { GraphEdge, GraphNode } from '../graph.types';
import { LiveGraphChanges } from './live-graph-changes';
import { LiveOverlayRegistry } from './live-overlay.registry';
import { LiveOverlayWriter } from './live-overlay.writer';

const KEY_PREFIX = 'graph-ai:overlay:';
/** Every change of every overlay is published here, with the overlay's version after it. */
export const OVERLAY_CHANNEL = 'graph-ai:overlay-changes';

/**
 * One overlay is one hash: `n:<key>` / `e:<key>` an upserted node / edge (JSON), `dn:<key>` / `de:<key>` a
 * deleted one, `_v` its version (bumped by every change). Each script checks, writes, bumps the version,
 * refreshes the idle expiry and publishes the change with its version, atomically, so the versions of the
 * messages are the order of the changes.
 */
const HASH_COUNT = `
local function entries(key)
  local count = redis.call('HLEN', key)
  if redis.call('HEXISTS', key, '_v') == 1 then count = count - 1 end
  return count
end`;

/**
 * KEYS[1] hash; ARGV: maxEntries, idleTtlMs, channel, header JSON, deleteNodes JSON, deleteEdges JSON, node count N,
 * then N node documents and the edge documents (JSON, stored and published as they are: never re-encoded by Lua,
 * whose cjson would turn an empty array into an object). Returns {version, entries}, or {-1, entries} past maxEntries.
 */
const APPLY_SCRIPT = `${HASH_COUNT}
local key = KEYS[1]
local deleteNodes = cjson.decode(ARGV[5])
local deleteEdges = cjson.decode(ARGV[6])
local nodeCount = tonumber(ARGV[7])
local nodes, edges, nodeKeys, edgeKeys = {}, {}, {}, {}
for i = 8, #ARGV do
  local document = ARGV[i]
  local id = cjson.decode(document)._key
  if i < 8 + nodeCount then table.insert(nodes, document); table.insert(nodeKeys, id)
  else table.insert(edges, document); table.insert(edgeKeys, id) end
end
local added = 0
local function count(kind, deleted, id)
  if redis.call('HEXISTS', key, kind .. id) == 0 and redis.call('HEXISTS', key, deleted .. id) == 0 then added = added + 1 end
end
for _, id in ipairs(nodeKeys) do count('n:', 'dn:', id) end
for _, id in ipairs(deleteNodes) do count('n:', 'dn:', id) end
for _, id in ipairs(edgeKeys) do count('e:', 'de:', id) end
for _, id in ipairs(deleteEdges) do count('e:', 'de:', id) end
local after = entries(key) + added
if after > tonumber(ARGV[1]) then return {-1, after} end
for _, id in ipairs(deleteNodes) do redis.call('HDEL', key, 'n:' .. id); redis.call('HSET', key, 'dn:' .. id, '1') end
for _, id in ipairs(deleteEdges) do redis.call('HDEL', key, 'e:' .. id); redis.call('HSET', key, 'de:' .. id, '1') end
for i, id in ipairs(nodeKeys) do redis.call('HDEL', key, 'dn:' .. id); redis.call('HSET', key, 'n:' .. id, nodes[i]) end
for i, id in ipairs(edgeKeys) do redis.call('HDEL', key, 'de:' .. id); redis.call('HSET', key, 'e:' .. id, edges[i]) end
local version = redis.call('HINCRBY', key, '_v', 1)
redis.call('PEXPIRE', key, ARGV[2])
local body = '{"upsertNodes":[' .. table.concat(nodes, ',') .. '],"deleteNodes":' .. ARGV[5] ..
  ',"upsertEdges":[' .. table.concat(edges, ',') .. '],"deleteEdges":' .. ARGV[6] .. '}'
redis.call('PUBLISH', ARGV[3], version .. '\\n' .. ARGV[4] .. '\\n' .. body)
return {version, after}`;

/** KEYS[1] hash; ARGV: idleTtlMs, channel, header JSON, forgotten keys JSON ({nodeKeys, edgeKeys}). Returns {version or 0, entries}. */
const FORGET_SCRIPT = `${HASH_COUNT}
local key = KEYS[1]
local keys = cjson.decode(ARGV[4])
local removed = 0
for _, id in ipairs(keys.nodeKeys) do removed = removed + redis.call('HDEL', key, 'n:' .. id, 'dn:' .. id) end
for _, id in ipairs(keys.edgeKeys) do removed = removed + redis.call('HDEL', key, 'e:' .. id, 'de:' .. id) end
if removed == 0 then return {0, entries(key)} end
local version = redis.call('HINCRBY', key, '_v', 1)
redis.call('PEXPIRE', key, ARGV[1])
redis.call('PUBLISH', ARGV[2], version .. '\\n' .. ARGV[3] .. '\\n' .. ARGV[4])
return {version, entries(key)}`;

/** KEYS[1] hash; ARGV: idleTtlMs, channel, header JSON. Keeps only the version, bumped. */
const CLEAR_SCRIPT = `
local key = KEYS[1]
local version = redis.call('HINCRBY', key, '_v', 1)
redis.call('DEL', key)
redis.call('HSET', key, '_v', version)
redis.call('PEXPIRE', key, ARGV[1])
redis.call('PUBLISH', ARGV[2], version .. '\\n' .. ARGV[3] .. '\\n{}')
return version`;

type Operation = 'apply' | 'forget' | 'clear';

interface OverlayMessage {
  version: number;
  op: Operation;
  workspace: string;
  graphKey: string;
  body: string;
}

interface OverlayScripts {
  overlayApply(
    key: string,
    maxEntries: number,
    ttlMs: number,
    channel: string,
    header: string,
    ...changes: Array<string | number>
  ): Promise<[number, number]>;
  overlayForget(key: string, ttlMs: number, channel: string, header: string, keys: string): Promise<[number, number]>;
  overlayClear(key: string, ttlMs: number, channel: string, header: string): Promise<number>;
}

const logger = new Logger('graph');

/**
 * With REDIS_URL, the live overlay is shared (docs/live-overlay.md, "Several instances"): Redis holds each
 * graph's unsaved state (one hash, expiring after the overlay's idle time), and every instance keeps a
 * replica in its LiveOverlayRegistry, so readers never wait for Redis. A change goes to Redis through a
 * script (the per-graph limit checked there, for every instance at once), then into this instance's
 * replica; the published message brings it to the others, which apply it and clear their retrieval
 * cache (a `live` GraphChangeEvent). Messages carry the overlay's version: a replica that missed one
 * (a gap, a reconnection, a start) reloads the graph's hash. Redis down: the change goes to this
 * instance's replica only (degraded); when Redis is back every replica reloads Redis's state.
 */
export class RedisLiveOverlayWriter implements LiveOverlayWriter {
  private readonly redis: QuietRedis & OverlayScripts;
  /** graph id → the shared version its replica is at (absent: unknown, reload on the next message). */
  private readonly versions = new Map<string, number>();
  /** graph id → messages received while its hash was being reloaded. */
  private readonly reloading = new Map<string, OverlayMessage[]>();
  private readonly reloads = new Map<string, Promise<void>>();
  private degraded = false;

  constructor(
    private readonly connection: RedisConnection,
    private readonly overlays: LiveOverlayRegistry,
    private readonly notifier: GraphChangeNotifier,
  ) {
    this.redis = connection.commands as QuietRedis & OverlayScripts;
    this.redis.defineCommand('overlayApply', { numberOfKeys: 1, lua: APPLY_SCRIPT });
    this.redis.defineCommand('overlayForget', { numberOfKeys: 1, lua: FORGET_SCRIPT });
    this.redis.defineCommand('overlayClear', { numberOfKeys: 1, lua: CLEAR_SCRIPT });
    const subscriber = connection.client({ role: 'overlay-sub', offlineQueue: true });
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === OVERLAY_CHANNEL) this.receive(message);
    });
    // After every reconnection what was published meanwhile is lost, so every replica reloads: once the subscription
    // is acknowledged again (from then on no change is missed) and every connection is back.
    const resync = () => {
      if (subscriber.status !== 'ready' || !connection.isUp) return;
      subscriber.subscribe(OVERLAY_CHANNEL).then(
        () => this.reloadAll(),
        () => undefined,
      );
    };
    subscriber.on('ready', resync);
    connection.onStateChange((up) => up && resync());
    subscriber.subscribe(OVERLAY_CHANNEL).catch(() => undefined);
  }

  async apply(workspace: string, graphKey: string, changes: LiveGraphChanges): Promise<number> {
    const { maxEntriesPerGraph, idleTtlMs } = this.overlays.limits;
    let answer: [number, number];
    try {
      answer = await this.redis.overlayApply(
        hashKey(workspace, graphKey),
        maxEntriesPerGraph,
        idleTtlMs,
        OVERLAY_CHANNEL,
        header('apply', workspace, graphKey),
        JSON.stringify(changes.deleteNodes),
        JSON.stringify(changes.deleteEdges),
        changes.upsertNodes.length,
        ...changes.upsertNodes.map((node) => JSON.stringify(node)),
        ...changes.upsertEdges.map((edge) => JSON.stringify(edge)),
      );
    } catch (error) {
      this.degrade(error);
      return this.overlays.apply(workspace, graphKey, changes).entryCount;
    }
    const [version, entries] = answer.map(Number);
    if (version < 0) {
      throw new AppError(
        'payload_too_large',
        `The live overlay of graph "${graphKey}" would hold ${entries} unsaved entries (limit ${maxEntriesPerGraph}): save first`,
        {
          limit: maxEntriesPerGraph,
          entries,
        },
      );
    }
    await this.applyOwn({ version, op: 'apply', workspace, graphKey, body: '' }, () =>
      this.overlays.apply(workspace, graphKey, changes),
    );
    return entries;
  }

  async forget(workspace: string, graphKey: string, nodeKeys: string[], edgeKeys: string[]): Promise<number> {
    let answer: [number, number];
    try {
      answer = await this.redis.overlayForget(
        hashKey(workspace, graphKey),
        this.overlays.limits.idleTtlMs,
        OVERLAY_CHANNEL,
        header('forget', workspace, graphKey),
        JSON.stringify({ nodeKeys, edgeKeys }),
      );
    } catch (error) {
      this.degrade(error);
      this.overlays.forget(workspace, graphKey, nodeKeys, edgeKeys);
      return this.overlays.get(workspace, graphKey)?.entryCount ?? 0;
    }
    const [version, entries] = answer.map(Number);
    // Nothing removed in Redis: nothing published either; this replica may still hold the keys (degraded earlier).
    if (version === 0) this.overlays.forget(workspace, graphKey, nodeKeys, edgeKeys);
    else
      await this.applyOwn({ version, op: 'forget', workspace, graphKey, body: '' }, () =>
        this.overlays.forget(workspace, graphKey, nodeKeys, edgeKeys),
      );
    return entries;
  }

  async clear(workspace: string, graphKey: string): Promise<void> {
    let version: number;
    try {
      version = Number(
        await this.redis.overlayClear(
          hashKey(workspace, graphKey),
          this.overlays.limits.idleTtlMs,
          OVERLAY_CHANNEL,
          header('clear', workspace, graphKey),
        ),
      );
    } catch (error) {
      this.degrade(error);
      this.overlays.clear(workspace, graphKey);
      return;
    }
    await this.applyOwn({ version, op: 'clear', workspace, graphKey, body: '' }, () =>
      this.overlays.clear(workspace, graphKey),
    );
  }

  /**
   * This instance's own change, already in Redis: into the replica now when it is the next version, else
   * (another instance's change came in between) by a reload, awaited: the replica holds it when the call resolves.
   */
  private async applyOwn(message: OverlayMessage, change: () => void): Promise<void> {
    const id = graphId(message.workspace, message.graphKey);
    if (this.reloading.has(id) || !this.isNext(id, message)) {
      // A reload already running may have read Redis before this change: read again until it is in.
      for (let attempt = 0; attempt < 3 && (this.versions.get(id) ?? -1) < message.version; attempt++) {
        await this.reload(message.workspace, message.graphKey);
      }
      return;
    }
    change();
    this.versions.set(id, message.version);
  }

  private receive(raw: string): void {
    const message = parseMessage(raw);
    if (message) this.handle(message);
  }

  private handle(message: OverlayMessage): void {
    const id = graphId(message.workspace, message.graphKey);
    const buffered = this.reloading.get(id);
    if (buffered) {
      buffered.push(message);
      return;
    }
    const known = this.versions.get(id);
    if (known !== undefined && message.version <= known) return; // this instance's own change, or one already reloaded
    if (!this.isNext(id, message)) {
      void this.reload(message.workspace, message.graphKey);
      return;
    }
    this.applyMessage(id, message);
  }

  /**
   * The replica holds the version just before the message's. A graph this instance never heard of and holds
   * nothing for is at version 0; a replica dropped here (idle, evicted, emptied) while its version is known
   * can only take a `clear`: anything else needs the whole state, so a reload.
   */
  private isNext(id: string, message: OverlayMessage): boolean {
    const hasReplica = this.overlays.get(message.workspace, message.graphKey) !== undefined;
    const known = this.versions.get(id) ?? (hasReplica ? undefined : 0);
    if (known === undefined || message.version !== known + 1) return false;
    return message.op === 'clear' || hasReplica || known === 0;
  }

  private applyMessage(id: string, message: OverlayMessage): void {
    const { workspace, graphKey } = message;
    try {
      if (message.op === 'apply')
        this.overlays.apply(workspace, graphKey, JSON.parse(message.body) as LiveGraphChanges);
      else if (message.op === 'forget') {
        const { nodeKeys, edgeKeys } = JSON.parse(message.body) as { nodeKeys: string[]; edgeKeys: string[] };
        this.overlays.forget(workspace, graphKey, nodeKeys, edgeKeys);
      } else this.overlays.clear(workspace, graphKey);
    } catch (error) {
      logger.warn('live_overlay_replica_diverged', {
        workspace,
        graphKey,
        error: error instanceof Error ? error.message : String(error),
      });
      void this.reload(workspace, graphKey);
      return;
    }
    this.versions.set(id, message.version);
    this.notifier.notify({ kind: 'live', workspace, graphKey });
  }

  /** Replaces the replica of one graph with Redis's state, then applies what arrived meanwhile. */
  private reload(workspace: string, graphKey: string): Promise<void> {
    const id = graphId(workspace, graphKey);
    const running = this.reloads.get(id);
    if (running) return running;
    this.reloading.set(id, []);
    const reload = this.reloadNow(workspace, graphKey, id).finally(() => this.reloads.delete(id));
    this.reloads.set(id, reload);
    return reload;
  }

  private async reloadNow(workspace: string, graphKey: string, id: string): Promise<void> {
    try {
      const fields = await this.redis.hgetall(hashKey(workspace, graphKey));
      const version = Number(fields._v ?? 0);
      this.overlays.clear(workspace, graphKey);
      const changes = changesOf(fields);
      if (
        changes.upsertNodes.length +
          changes.deleteNodes.length +
          changes.upsertEdges.length +
          changes.deleteEdges.length >
        0
      ) {
        this.overlays.apply(workspace, graphKey, changes);
      }
      this.versions.set(id, version);
      this.notifier.notify({ kind: 'live', workspace, graphKey });
    } catch (error) {
      // Redis unreachable: the replica stays as it is; the next (re)subscription reloads everything.
      this.versions.delete(id);
      logger.warn('live_overlay_reload_failed', {
        workspace,
        graphKey,
        error: error instanceof Error ? error.message : String(error),
      });
    } finally {
      const buffered = this.reloading.get(id) ?? [];
      this.reloading.delete(id);
      for (const message of buffered) this.handle(message);
    }
  }

  /** Every overlay Redis holds, and every replica this instance holds, reloaded (start, reconnection). */
  private async reloadAll(): Promise<void> {
    const graphs = new Map<string, { workspace: string; graphKey: string }>();
    try {
      for await (const keys of this.redis.scanStream({ match: `${KEY_PREFIX}*`, count: 200 }) as AsyncIterable<
        string[]
      >) {
        for (const key of keys) {
          const parsed = parseHashKey(key);
          if (parsed) graphs.set(graphId(parsed.workspace, parsed.graphKey), parsed);
        }
      }
    } catch (error) {
      logger.warn('live_overlay_reload_failed', { error: error instanceof Error ? error.message : String(error) });
      return;
    }
    // Replicas Redis does not hold (changed here while Redis was down, or expired there) go back to Redis's state.
    for (const graph of this.overlays.graphs()) graphs.set(graphId(graph.workspace, graph.graphKey), graph);
    if (this.degraded) logger.info('live_overlay_shared_again', { graphs: graphs.size });
    this.degraded = false;
    await Promise.all([...graphs.values()].map(({ workspace, graphKey }) => this.reload(workspace, graphKey)));
  }

  private degrade(error: unknown): void {
    if (!this.degraded)
      logger.warn('live_overlay_not_shared', { reason: error instanceof Error ? error.message : String(error) });
    this.degraded = true;
  }
}

function graphId(workspace: string, graphKey: string): string {
  return JSON.stringify([workspace, graphKey]);
}

function hashKey(workspace: string, graphKey: string): string {
  return `${KEY_PREFIX}${encodeURIComponent(workspace)}:${encodeURIComponent(graphKey)}`;
}

function parseHashKey(key: string): { workspace: string; graphKey: string } | null {
  const parts = key.slice(KEY_PREFIX.length).split(':');
  return parts.length === 2
    ? { workspace: decodeURIComponent(parts[0]), graphKey: decodeURIComponent(parts[1]) }
    : null;
}

function header(op: Operation, workspace: string, graphKey: string): string {
  return JSON.stringify({ op, workspace, graphKey });
}

function parseMessage(raw: string): OverlayMessage | null {
  const first = raw.indexOf('\n');
  const second = raw.indexOf('\n', first + 1);
  if (first < 0 || second < 0) return null;
  const { op, workspace, graphKey } = JSON.parse(raw.slice(first + 1, second)) as {
    op: Operation;
    workspace: string;
    graphKey: string;
  };
  return { version: Number(raw.slice(0, first)), op, workspace, graphKey, body: raw.slice(second + 1) };
}

function changesOf(fields: Record<string, string>): LiveGraphChanges {
  const changes: LiveGraphChanges = { upsertNodes: [], deleteNodes: [], upsertEdges: [], deleteEdges: [] };
  for (const [field, value] of Object.entries(fields)) {
    const separator = field.indexOf(':');
    const kind = field.slice(0, separator);
    const key = field.slice(separator + 1);
    if (kind === 'n') changes.upsertNodes.push(JSON.parse(value) as GraphNode);
    else if (kind === 'e') changes.upsertEdges.push(JSON.parse(value) as GraphEdge);
    else if (kind === 'dn') changes.deleteNodes.push(key);
    else if (kind === 'de') changes.deleteEdges.push(key);
  }
  return changes;
}

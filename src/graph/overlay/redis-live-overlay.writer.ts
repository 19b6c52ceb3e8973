import { randomUUID } from 'node:crypto';
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
 * deleted one, `_v` its version (bumped by every change), `_e` its epoch (set when the hash is created). Each
 * script checks, writes, bumps the version, refreshes the idle expiry and publishes the change with its epoch
 * and version, atomically, so the versions of the messages are the order of the changes. The hash expires
 * with its version (idle), and may vanish otherwise (eviction, a restart without persistence): the next
 * change creates it again at version 1 under a new epoch, which every replica recognises as a new history
 * instead of taking it for a change it already has. A script's first write is one Redis refuses when full
 * (HINCRBY): past that first write a full Redis lets a script go on, so an HDEL first would let a change
 * grow a full Redis. A forget only removes, and goes through even then.
 */
const HASH_HELPERS = `
local function entries(key)
  local count = redis.call('HLEN', key)
  if redis.call('HEXISTS', key, '_v') == 1 then count = count - 1 end
  if redis.call('HEXISTS', key, '_e') == 1 then count = count - 1 end
  return count
end
local function epochOf(key, candidate)
  local epoch = redis.call('HGET', key, '_e')
  if not epoch then
    epoch = candidate
    redis.call('HSET', key, '_e', epoch)
  end
  return epoch
end`;

/**
 * KEYS[1] hash; ARGV: maxEntries, idleTtlMs, channel, header JSON, candidate epoch, deleteNodes JSON, deleteEdges JSON,
 * node count N, then N node documents and the edge documents (JSON, stored and published as they are: never
 * re-encoded by Lua, whose cjson would turn an empty array into an object). Returns {version, entries, epoch}, or
 * {-1, entries} past maxEntries (nothing written).
 */
const APPLY_SCRIPT = `${HASH_HELPERS}
local key = KEYS[1]
local deleteNodes = cjson.decode(ARGV[6])
local deleteEdges = cjson.decode(ARGV[7])
local nodeCount = tonumber(ARGV[8])
local nodes, edges, nodeKeys, edgeKeys = {}, {}, {}, {}
for i = 9, #ARGV do
  local document = ARGV[i]
  local id = cjson.decode(document)._key
  if i < 9 + nodeCount then table.insert(nodes, document); table.insert(nodeKeys, id)
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
local version = redis.call('HINCRBY', key, '_v', 1)
local epoch = epochOf(key, ARGV[5])
for _, id in ipairs(deleteNodes) do redis.call('HDEL', key, 'n:' .. id); redis.call('HSET', key, 'dn:' .. id, '1') end
for _, id in ipairs(deleteEdges) do redis.call('HDEL', key, 'e:' .. id); redis.call('HSET', key, 'de:' .. id, '1') end
for i, id in ipairs(nodeKeys) do redis.call('HDEL', key, 'dn:' .. id); redis.call('HSET', key, 'n:' .. id, nodes[i]) end
for i, id in ipairs(edgeKeys) do redis.call('HDEL', key, 'de:' .. id); redis.call('HSET', key, 'e:' .. id, edges[i]) end
redis.call('PEXPIRE', key, ARGV[2])
local body = '{"upsertNodes":[' .. table.concat(nodes, ',') .. '],"deleteNodes":' .. ARGV[6] ..
  ',"upsertEdges":[' .. table.concat(edges, ',') .. '],"deleteEdges":' .. ARGV[7] .. '}'
redis.call('PUBLISH', ARGV[3], version .. ' ' .. epoch .. '\\n' .. ARGV[4] .. '\\n' .. body)
return {version, after, epoch}`;

/**
 * KEYS[1] hash; ARGV: idleTtlMs, channel, header JSON, candidate epoch, forgotten keys JSON ({nodeKeys, edgeKeys}).
 * Returns {version, entries, epoch}, or {0, entries} when nothing was removed (nothing written).
 */
const FORGET_SCRIPT = `${HASH_HELPERS}
local key = KEYS[1]
local keys = cjson.decode(ARGV[5])
local removed = 0
for _, id in ipairs(keys.nodeKeys) do removed = removed + redis.call('HDEL', key, 'n:' .. id, 'dn:' .. id) end
for _, id in ipairs(keys.edgeKeys) do removed = removed + redis.call('HDEL', key, 'e:' .. id, 'de:' .. id) end
if removed == 0 then return {0, entries(key)} end
local epoch = epochOf(key, ARGV[4])
local version = redis.call('HINCRBY', key, '_v', 1)
redis.call('PEXPIRE', key, ARGV[1])
redis.call('PUBLISH', ARGV[2], version .. ' ' .. epoch .. '\\n' .. ARGV[3] .. '\\n' .. ARGV[5])
return {version, entries(key), epoch}`;

/** KEYS[1] hash; ARGV: idleTtlMs, channel, header JSON, candidate epoch. Keeps only the version, bumped, and the epoch. Returns {version, 0, epoch}. */
const CLEAR_SCRIPT = `${HASH_HELPERS}
local key = KEYS[1]
local epoch = epochOf(key, ARGV[4])
local version = redis.call('HINCRBY', key, '_v', 1)
redis.call('DEL', key)
redis.call('HSET', key, '_v', version, '_e', epoch)
redis.call('PEXPIRE', key, ARGV[1])
redis.call('PUBLISH', ARGV[2], version .. ' ' .. epoch .. '\\n' .. ARGV[3] .. '\\n{}')
return {version, 0, epoch}`;

/** How often a refused change is retried for repair: a write probe, then a reload of the graphs it left diverging. */
export const OVERLAY_REPAIR_INTERVAL_MS = 1_000;
const PROBE_KEY = 'graph-ai:overlay-probe';

type Operation = 'apply' | 'forget' | 'clear';

interface OverlayMessage {
  version: number;
  /** The history the version belongs to (a hash created again starts another). */
  epoch: string;
  op: Operation;
  workspace: string;
  graphKey: string;
  body: string;
}

/** Where a replica stands: the shared history and version it holds (epoch null: Redis held no hash at the reload). */
interface ReplicaVersion {
  epoch: string | null;
  version: number;
}

/** A script's answer: [version, entries, epoch]; version -1 past the limit, 0 when nothing was written. */
type ScriptAnswer = [number, number, string?];

interface OverlayScripts {
  overlayApply(
    key: string,
    maxEntries: number,
    ttlMs: number,
    channel: string,
    header: string,
    epoch: string,
    ...changes: Array<string | number>
  ): Promise<ScriptAnswer>;
  overlayForget(
    key: string,
    ttlMs: number,
    channel: string,
    header: string,
    epoch: string,
    keys: string,
  ): Promise<ScriptAnswer>;
  overlayClear(key: string, ttlMs: number, channel: string, header: string, epoch: string): Promise<ScriptAnswer>;
}

const logger = new Logger('graph');

/**
 * With REDIS_URL, the live overlay is shared by every instance: Redis holds each
 * graph's unsaved state (one hash, expiring after the overlay's idle time), and every instance keeps a
 * replica in its LiveOverlayRegistry, so readers never wait for Redis. A change goes to Redis through a
 * script (the per-graph limit checked there, for every instance at once), then into this instance's
 * replica; the published message brings it to the others, which apply it and clear their retrieval
 * cache (a `live` GraphChangeEvent). Messages carry the overlay's epoch and version: a replica that missed
 * one (a gap, a reconnection, a start) reloads the graph's hash; a hash created again (expired, evicted,
 * Redis restarted empty) starts a new epoch at version 1, which replicas apply to an empty state.
 *
 * A change caught by a reconnection (an idle `timeout`, a CLIENT KILL) is sent again once the connection is
 * back (a second run of a script changes nothing more). A change Redis does not take (down, full, READONLY,
 * BUSY) goes to this instance's replica only, and
 * the graph is marked as diverging: while any graph is, a write probe runs every repairIntervalMs, and
 * once Redis takes writes again (the probe, or any successful change of this instance) those graphs are
 * reloaded from Redis, so every replica holds Redis's state again. A reconnection reloads everything.
 */
export class RedisLiveOverlayWriter implements LiveOverlayWriter {
  private readonly redis: QuietRedis & OverlayScripts;
  /** graph id → the shared version its replica is at (absent: unknown, reload on the next message). */
  private readonly versions = new Map<string, ReplicaVersion>();
  /** graph id → messages received while its hash was being reloaded. */
  private readonly reloading = new Map<string, OverlayMessage[]>();
  private readonly reloads = new Map<string, Promise<void>>();
  /** Graphs whose replica took a change Redis refused: reloaded once Redis takes writes again. */
  private readonly diverging = new Map<string, { workspace: string; graphKey: string }>();
  private repairTimer: NodeJS.Timeout | undefined;
  private repairing = false;
  private degraded = false;

  constructor(
    private readonly connection: RedisConnection,
    private readonly overlays: LiveOverlayRegistry,
    private readonly notifier: GraphChangeNotifier,
    private readonly repairIntervalMs = OVERLAY_REPAIR_INTERVAL_MS,
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
    // is acknowledged again (from then on no change is missed) and the command connection is back.
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
    let answer: ScriptAnswer;
    try {
      answer = await this.connection.acrossReconnection(() =>
        this.redis.overlayApply(
          hashKey(workspace, graphKey),
          maxEntriesPerGraph,
          idleTtlMs,
          OVERLAY_CHANNEL,
          header('apply', workspace, graphKey),
          newEpoch(),
          JSON.stringify(changes.deleteNodes),
          JSON.stringify(changes.deleteEdges),
          changes.upsertNodes.length,
          ...changes.upsertNodes.map((node) => JSON.stringify(node)),
          ...changes.upsertEdges.map((edge) => JSON.stringify(edge)),
        ),
      );
    } catch (error) {
      // Applied here first: past this instance's own limit nothing is applied, and nothing diverges.
      const { entryCount } = this.overlays.apply(workspace, graphKey, changes);
      this.refused(workspace, graphKey, error);
      return entryCount;
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
    await this.applyOwn(messageOf(answer, 'apply', workspace, graphKey), () =>
      this.overlays.apply(workspace, graphKey, changes),
    );
    return entries;
  }

  async forget(workspace: string, graphKey: string, nodeKeys: string[], edgeKeys: string[]): Promise<number> {
    let answer: ScriptAnswer;
    try {
      answer = await this.connection.acrossReconnection(() =>
        this.redis.overlayForget(
          hashKey(workspace, graphKey),
          this.overlays.limits.idleTtlMs,
          OVERLAY_CHANNEL,
          header('forget', workspace, graphKey),
          newEpoch(),
          JSON.stringify({ nodeKeys, edgeKeys }),
        ),
      );
    } catch (error) {
      this.overlays.forget(workspace, graphKey, nodeKeys, edgeKeys);
      this.refused(workspace, graphKey, error);
      return this.overlays.get(workspace, graphKey)?.entryCount ?? 0;
    }
    const [version, entries] = answer.map(Number);
    // Nothing removed in Redis: nothing published either; this replica may still hold the keys (degraded earlier).
    if (version === 0) this.overlays.forget(workspace, graphKey, nodeKeys, edgeKeys);
    else
      await this.applyOwn(messageOf(answer, 'forget', workspace, graphKey), () =>
        this.overlays.forget(workspace, graphKey, nodeKeys, edgeKeys),
      );
    return entries;
  }

  async clear(workspace: string, graphKey: string): Promise<void> {
    let answer: ScriptAnswer;
    try {
      answer = await this.connection.acrossReconnection(() =>
        this.redis.overlayClear(
          hashKey(workspace, graphKey),
          this.overlays.limits.idleTtlMs,
          OVERLAY_CHANNEL,
          header('clear', workspace, graphKey),
          newEpoch(),
        ),
      );
    } catch (error) {
      this.overlays.clear(workspace, graphKey);
      this.refused(workspace, graphKey, error);
      return;
    }
    await this.applyOwn(messageOf(answer, 'clear', workspace, graphKey), () =>
      this.overlays.clear(workspace, graphKey),
    );
  }

  /** Stops the repair timer (shutdown, after the transports). */
  onApplicationShutdown(): void {
    clearTimeout(this.repairTimer);
    this.repairTimer = undefined;
  }

  /**
   * This instance's own change, already in Redis: into the replica now when it is the next version, else
   * (another instance's change came in between, or the replica diverged while Redis refused a change) by a
   * reload, awaited: the replica holds it when the call resolves. Redis takes writes again: the other graphs
   * left diverging are repaired now.
   */
  private async applyOwn(message: OverlayMessage, change: () => void): Promise<void> {
    const id = graphId(message.workspace, message.graphKey);
    const diverged = this.diverging.delete(id);
    if (this.diverging.size > 0) this.scheduleRepair(0);
    if (diverged || this.reloading.has(id) || !this.isNext(id, message)) {
      // A reload already running may have read Redis before this change: read again until it is in.
      for (let attempt = 0; attempt < 3 && !this.holds(id, message); attempt++) {
        await this.reload(message.workspace, message.graphKey);
      }
      return;
    }
    if (message.version === 1) this.overlays.clear(message.workspace, message.graphKey);
    change();
    this.versions.set(id, { epoch: message.epoch, version: message.version });
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
    // This instance's own change, or one already reloaded.
    if (this.holds(id, message)) return;
    if (!this.isNext(id, message)) {
      void this.reload(message.workspace, message.graphKey);
      return;
    }
    this.applyMessage(id, message);
  }

  /** The replica holds this change already: same epoch, and a version at least as high. */
  private holds(id: string, message: OverlayMessage): boolean {
    const known = this.versions.get(id);
    return known !== undefined && known.epoch === message.epoch && message.version <= known.version;
  }

  /**
   * The message can be applied on the replica as it is: it is version 1 of an epoch (a hash created anew:
   * applied to an empty state), or the version right after the replica's in the same epoch. A graph this
   * instance never heard of and holds nothing for is at version 0; a replica dropped here (idle, evicted,
   * emptied) while its version is known can only take a `clear`: anything else needs the whole state, so a reload.
   */
  private isNext(id: string, message: OverlayMessage): boolean {
    if (message.version === 1) return true;
    const known = this.versions.get(id);
    if (known === undefined || known.epoch !== message.epoch || message.version !== known.version + 1) return false;
    return message.op === 'clear' || this.overlays.get(message.workspace, message.graphKey) !== undefined;
  }

  private applyMessage(id: string, message: OverlayMessage): void {
    const { workspace, graphKey } = message;
    try {
      if (message.version === 1) this.overlays.clear(workspace, graphKey);
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
    this.versions.set(id, { epoch: message.epoch, version: message.version });
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
      this.versions.set(id, { epoch: fields._e ?? null, version: Number(fields._v ?? 0) });
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
    this.diverging.clear();
    await Promise.all([...graphs.values()].map(({ workspace, graphKey }) => this.reload(workspace, graphKey)));
  }

  /** Redis did not take a change this replica took: the graph diverges until Redis takes writes again. */
  private refused(workspace: string, graphKey: string, error: unknown): void {
    if (!this.degraded)
      logger.warn('live_overlay_not_shared', { reason: error instanceof Error ? error.message : String(error) });
    this.degraded = true;
    this.diverging.set(graphId(workspace, graphKey), { workspace, graphKey });
    this.scheduleRepair(this.repairIntervalMs);
  }

  private scheduleRepair(delayMs: number): void {
    if (this.repairTimer !== undefined || this.repairing) return;
    this.repairTimer = setTimeout(() => {
      this.repairTimer = undefined;
      void this.repair();
    }, delayMs);
    this.repairTimer.unref();
  }

  /** Once Redis takes a write (the probe), the diverging graphs are reloaded; otherwise tried again later. */
  private async repair(): Promise<void> {
    if (this.diverging.size === 0) return;
    this.repairing = true;
    try {
      await this.redis.set(PROBE_KEY, '1', 'PX', this.repairIntervalMs);
    } catch {
      this.repairing = false;
      this.scheduleRepair(this.repairIntervalMs);
      return;
    }
    const graphs = [...this.diverging];
    this.diverging.clear();
    const reloaded = await Promise.all(
      graphs.map(async ([id, { workspace, graphKey }]) => {
        await this.reload(workspace, graphKey);
        return this.versions.has(id);
      }),
    );
    graphs.forEach(([id, graph], index) => {
      if (!reloaded[index]) this.diverging.set(id, graph);
    });
    this.repairing = false;
    if (this.diverging.size > 0) this.scheduleRepair(this.repairIntervalMs);
    else if (this.degraded) {
      this.degraded = false;
      logger.info('live_overlay_shared_again', { graphs: graphs.length });
    }
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

/** `<version> <epoch>\n<header JSON>\n<body>`. */
function parseMessage(raw: string): OverlayMessage | null {
  const first = raw.indexOf('\n');
  const second = raw.indexOf('\n', first + 1);
  if (first < 0 || second < 0) return null;
  const [version, epoch] = raw.slice(0, first).split(' ');
  const { op, workspace, graphKey } = JSON.parse(raw.slice(first + 1, second)) as {
    op: Operation;
    workspace: string;
    graphKey: string;
  };
  return { version: Number(version), epoch: epoch ?? '', op, workspace, graphKey, body: raw.slice(second + 1) };
}

function messageOf(answer: ScriptAnswer, op: Operation, workspace: string, graphKey: string): OverlayMessage {
  return { version: Number(answer[0]), epoch: String(answer[2] ?? ''), op, workspace, graphKey, body: '' };
}

/** A fresh epoch, used by a script only when it creates the graph's hash. */
function newEpoch(): string {
  return randomUUID();
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

import { randomUUID } from 'node:crypto';
import { AppError } from '../../src/errors/app-error';
import type { StoredProviderConfig } from '../../src/providers/configs/provider-config';
import type { ProviderConfigRepository } from '../../src/providers/configs/provider-config.repository';

export interface ProviderConfigRepositoryFixture {
  repository: ProviderConfigRepository;
  close(): Promise<void>;
}

/**
 * The behaviour every ProviderConfigRepository adapter must have (SQLite, ArangoDB). Each test works
 * in workspaces of its own, so adapters need no cleaning between tests.
 */
export function describeProviderConfigRepositoryContract(
  name: string,
  create: () => Promise<ProviderConfigRepositoryFixture>,
): void {
  describe(`ProviderConfigRepository contract: ${name}`, () => {
    let fixture: ProviderConfigRepositoryFixture;
    let repository: ProviderConfigRepository;
    let workspace: string;
    let other: string;

    beforeEach(async () => {
      fixture = await create();
      repository = fixture.repository;
      workspace = `ws-${randomUUID()}`;
      other = `ws-${randomUUID()}`;
    });
    afterEach(() => fixture.close());

    const config = (overrides: Partial<StoredProviderConfig> = {}): StoredProviderConfig => ({
      configId: `pc_${randomUUID().replace(/-/g, '')}`,
      workspace,
      name: `config ${randomUUID().slice(0, 8)}`,
      provider: 'deepseek',
      model: 'deepseek-chat',
      apiKeySecret: `v1.key.nonce.${randomUUID()}.tag`,
      apiKeyLast4: 'abcd',
      active: false,
      createdTime: 1_700_000_000_000,
      updatedTime: 1_700_000_000_000,
      ...overrides,
    });

    it('stores a configuration and reads it back in its workspace only', async () => {
      const stored = config({ baseUrl: 'https://gateway.example.com/v1' });
      await repository.insert(stored);
      expect(await repository.get(workspace, stored.configId)).toEqual(stored);
      expect(await repository.get(other, stored.configId)).toBeNull();
      expect(await repository.list(other)).toEqual([]);
      expect(await repository.count(workspace)).toBe(1);
      expect(await repository.count(other)).toBe(0);
      const keyless = config({
        provider: 'ollama',
        apiKeySecret: undefined,
        apiKeyLast4: undefined,
        createdTime: 1_700_000_000_001,
      });
      await repository.insert(keyless);
      const listed = await repository.list(workspace);
      expect(listed.map((item) => item.configId)).toEqual([stored.configId, keyless.configId]);
      expect(listed[1]).not.toHaveProperty('apiKeySecret');
      expect(listed[1]).not.toHaveProperty('baseUrl');
    });

    it('keeps names unique per workspace, not across workspaces', async () => {
      await repository.insert(config({ name: 'Team' }));
      await expect(repository.insert(config({ name: 'Team' }))).rejects.toMatchObject({ code: 'conflict' });
      await expect(repository.insert(config({ name: 'Team', workspace: other }))).resolves.toBeUndefined();
      const second = config({ name: 'Second' });
      await repository.insert(second);
      const renaming = repository.update(workspace, second.configId, { name: 'Team' }, 1_700_000_000_100);
      await expect(renaming).rejects.toBeInstanceOf(AppError);
      await expect(renaming).rejects.toMatchObject({ code: 'conflict' });
    });

    it('updates the given fields, removes those set to null, and moves updatedTime forward even within one millisecond', async () => {
      const stored = config({ baseUrl: 'https://a.example.com' });
      await repository.insert(stored);
      const changed = await repository.update(
        workspace,
        stored.configId,
        { model: 'deepseek-reasoner', baseUrl: null },
        stored.updatedTime,
      );
      expect(changed).toMatchObject({ model: 'deepseek-reasoner', name: stored.name, apiKeyLast4: 'abcd' });
      expect(changed).not.toHaveProperty('baseUrl');
      expect(changed!.updatedTime).toBeGreaterThan(stored.updatedTime);
      const keyless = await repository.update(
        workspace,
        stored.configId,
        { apiKeySecret: null, apiKeyLast4: null },
        stored.updatedTime,
      );
      expect(keyless).not.toHaveProperty('apiKeySecret');
      expect(keyless).not.toHaveProperty('apiKeyLast4');
      expect(keyless!.updatedTime).toBeGreaterThan(changed!.updatedTime);
      expect(await repository.update(other, stored.configId, { model: 'x' }, 1)).toBeNull();
      expect(await repository.get(workspace, stored.configId)).toEqual(keyless);
    });

    it('keeps one active configuration per workspace: activating one deactivates the other', async () => {
      const first = config();
      const second = config();
      const elsewhere = config({ workspace: other });
      for (const item of [first, second, elsewhere]) await repository.insert(item);
      expect(await repository.getActive(workspace)).toBeNull();

      expect(await repository.activate(workspace, first.configId, 1_700_000_001_000)).toMatchObject({
        configId: first.configId,
        active: true,
      });
      expect(await repository.activate(other, elsewhere.configId, 1_700_000_001_000)).toMatchObject({ active: true });
      expect(await repository.getActive(workspace)).toMatchObject({ configId: first.configId });

      const activated = await repository.activate(workspace, second.configId, 1_700_000_002_000);
      expect(activated).toMatchObject({ configId: second.configId, active: true, updatedTime: 1_700_000_002_000 });
      expect(await repository.getActive(workspace)).toMatchObject({ configId: second.configId });
      expect((await repository.get(workspace, first.configId))?.active).toBe(false);
      expect((await repository.list(workspace)).filter((item) => item.active)).toHaveLength(1);
      expect(await repository.getActive(other)).toMatchObject({ configId: elsewhere.configId });

      expect(await repository.activate(workspace, second.configId, 1_700_000_003_000)).toMatchObject({ active: true });
      expect(await repository.activate(workspace, 'pc_missing', 1_700_000_003_000)).toBeNull();
      expect(await repository.activate(other, first.configId, 1_700_000_003_000)).toBeNull();
      expect(await repository.getActive(workspace)).toMatchObject({ configId: second.configId });
    });

    it("deactivates the workspace's active configuration, and says when there was none", async () => {
      const stored = config();
      await repository.insert(stored);
      expect(await repository.deactivate(workspace, 1_700_000_001_000)).toBe(false);
      await repository.activate(workspace, stored.configId, 1_700_000_001_000);
      expect(await repository.deactivate(workspace, 1_700_000_002_000)).toBe(true);
      expect(await repository.getActive(workspace)).toBeNull();
      expect((await repository.get(workspace, stored.configId))?.active).toBe(false);
    });

    it('deletes in its workspace only; deleting the active one leaves none active', async () => {
      const stored = config();
      await repository.insert(stored);
      await repository.activate(workspace, stored.configId, 1_700_000_001_000);
      expect(await repository.delete(other, stored.configId)).toBe(false);
      expect(await repository.delete(workspace, stored.configId)).toBe(true);
      expect(await repository.delete(workspace, stored.configId)).toBe(false);
      expect(await repository.getActive(workspace)).toBeNull();
    });

    it('lists every sealed key for the operators, and replaces one only while it is the expected one', async () => {
      const mine = config();
      const theirs = config({ workspace: other });
      await repository.insert(mine);
      await repository.insert(theirs);
      await repository.insert(config({ apiKeySecret: undefined, apiKeyLast4: undefined, provider: 'ollama' }));
      const sealed = (await repository.listSealed()).filter((item) => [workspace, other].includes(item.workspace));
      expect(sealed).toHaveLength(2);
      expect(sealed).toContainEqual({
        workspace,
        configId: mine.configId,
        name: mine.name,
        apiKeySecret: mine.apiKeySecret,
      });

      expect(await repository.replaceSealed(workspace, mine.configId, 'v1.stale', 'v1.new')).toBe(false);
      expect(await repository.replaceSealed(other, mine.configId, mine.apiKeySecret!, 'v1.new')).toBe(false);
      expect(await repository.replaceSealed(workspace, mine.configId, mine.apiKeySecret!, 'v1.new')).toBe(true);
      expect((await repository.get(workspace, mine.configId))?.apiKeySecret).toBe('v1.new');
      expect((await repository.get(workspace, mine.configId))?.updatedTime).toBe(mine.updatedTime);
    });
  });
}

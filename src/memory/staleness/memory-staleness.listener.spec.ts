import { MemoryTestbed } from '../../../test/support/memory-testbed';
import { nbaWorkflowDemo } from '../../graph/demo/nba-workflow.demo';
import { graphChangeSet } from '../../graph/graph-change-set';
import { MemoryStalenessListener } from './memory-staleness.listener';
import { MemoryStalenessMarker } from './memory-staleness.marker';

describe(MemoryStalenessListener.name, () => {
  let bed: MemoryTestbed;
  let listener: MemoryStalenessListener;
  let threadId: string;

  const staleness = async () =>
    Object.fromEntries(
      (await bed.repository.list('default', threadId, { level: 0 })).map((record) => [
        record.mentions.map((mention) => mention.key).join('+'),
        record.stale,
      ]),
    );

  beforeEach(async () => {
    bed = await MemoryTestbed.create();
    listener = new MemoryStalenessListener(bed.notifier, new MemoryStalenessMarker(bed.repository, bed.graphs));
    const thread = await bed.conversation([
      { user: 'What does fetch-api do?', answer: 'It calls the NBA API.' },
      { user: 'And filter-active?', answer: 'It keeps active players.' },
      { user: 'And root?', answer: 'It starts everything.' },
    ]);
    threadId = thread.threadId;
    await bed.writer.update(bed.principal, threadId);
  });

  afterEach(async () => {
    await listener.onModuleDestroy();
    await bed.close();
  });

  it('marks stale, without any model call, the records mentioning a node whose content changed, and only those', async () => {
    const source = bed.graphs.forWorkspace('default');
    const fetchApi = await source.getNodeByKey('nba-workflow', 'fetch-api');
    await source.updateNode('nba-workflow', { ...fetchApi!, posX: fetchApi!.posX + 100 });
    await listener.whenIdle();
    expect(await staleness()).toEqual({ 'fetch-api': false, 'filter-active': false, root: false });

    await source.updateNode('nba-workflow', { ...fetchApi!, process: 'return fetch("https://example.org");' });
    await listener.whenIdle();
    expect(await staleness()).toEqual({ 'fetch-api': true, 'filter-active': false, root: false });
    const [stale] = (await bed.repository.list('default', threadId)).filter((record) => record.stale);
    expect(stale.staleTime).toEqual(expect.any(Number));
  });

  it('marks stale the records mentioning a node deleted by an applied change set', async () => {
    await bed.graphs
      .forWorkspace('default')
      .applyChanges('nba-workflow', graphChangeSet({ nodeKeysToDelete: ['filter-active'] }));
    await listener.whenIdle();
    expect(await staleness()).toEqual({ 'fetch-api': false, 'filter-active': true, root: false });
  });

  it('after an import, marks stale what mentions the nodes the new graph changed or lacks', async () => {
    const document = structuredClone(nbaWorkflowDemo);
    document.nodes = document.nodes
      .filter((node) => node._key !== 'fetch-api')
      .map((node) => (node._key === 'root' ? { ...node, data: { replaced: true } } : node));
    document.edges = document.edges.filter((edge) => edge.source !== 'fetch-api' && edge.target !== 'fetch-api');
    await bed.graphStore.importGraph('default', document);
    bed.notifier.notify({ kind: 'imported', workspace: 'default', graphKey: 'nba-workflow' });
    await listener.whenIdle();
    expect(await staleness()).toEqual({ 'fetch-api': true, 'filter-active': false, root: true });
  });

  it('leaves a change relayed from another instance (remote) to the instance that made it', async () => {
    const document = structuredClone(nbaWorkflowDemo);
    document.nodes = document.nodes.map((node) =>
      node._key === 'root' ? { ...node, data: { replaced: true } } : node,
    );
    await bed.graphStore.importGraph('default', document);
    bed.notifier.notify({ kind: 'imported', workspace: 'default', graphKey: 'nba-workflow', remote: true });
    await listener.whenIdle();
    expect(await staleness()).toEqual({ 'fetch-api': false, 'filter-active': false, root: false });
  });

  it('ignores unsaved (live) changes and changes of another workspace', async () => {
    bed.notifier.notify({ kind: 'live', workspace: 'default', graphKey: 'nba-workflow' });
    bed.notifier.notify({
      kind: 'stored',
      workspace: 'globex',
      graphKey: 'nba-workflow',
      nodeKeys: [],
      deletedNodeKeys: ['root'],
    });
    await listener.whenIdle();
    expect(await staleness()).toEqual({ 'fetch-api': false, 'filter-active': false, root: false });
  });
});

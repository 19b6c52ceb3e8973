import type { OperationActor, OperationRecord, OperationStatus } from '../../changes/operation';
import { emptyChanges } from '../../changes/operation';
import { ActionConversionResult } from '../../conversation/action-conversion-result';
import { Interrupt } from '../../conversation/interrupt';
import { ProposedAction } from '../../conversation/proposed-action';
import { DEMO_GRAPH_KEY, nbaWorkflowDemo } from '../../graph/demo/nba-workflow.demo';
import { PendingInterrupt, PendingItem } from '../../threads/thread.types';
import { ActionConverter } from '../actions/action.converter';
import { ApprovedChange } from '../actions/run-actions';
import { HitlOutcome } from '../hitl.observer';
import { DecisionActions, PendingInterruptSettler, supersededResults } from './pending-interrupt.settler';

const converter = new ActionConverter(nbaWorkflowDemo.nodeConfigs);
const basis = { graphRevision: '1', nodes: {}, edges: {} };
const proposal: ProposedAction = {
  type: 'create_node',
  payload: { nodeKey: 'log-errors', typeKey: 'log-node', sheet: '0', posX: 820, posY: 300 },
  reason: 'Log the fetch errors',
};
const approval: Extract<Interrupt, { kind: 'approval' }> = {
  kind: 'approval',
  toolCallId: 'call_create',
  proposedAction: proposal,
  preview: { ...converter.convert(proposal, DEMO_GRAPH_KEY, '0', 'call_create'), basis },
};
const pendingOf = (interrupt: Interrupt, items?: PendingItem[]): PendingInterrupt => ({
  interrupt,
  toolName: interrupt.kind === 'approval' ? 'propose_create_node' : 'ask_user',
  remainingToolCalls: [
    { id: 'call_next', type: 'function', function: { name: 'propose_delete_edge', arguments: '{}' } },
  ],
  createdTime: 1,
  ...(items ? { items } : {}),
});
const editor = { userId: 'eddie', workspace: 'default', role: 'editor' as const };

const recordOf = (status: OperationStatus, extra: Partial<OperationRecord> = {}): OperationRecord => ({
  operationId: 'ai_t:call_create',
  workspace: 'default',
  graphKey: DEMO_GRAPH_KEY,
  threadId: 'ai_t',
  toolCallId: 'call_create',
  status,
  actor: { userId: 'eddie', role: 'editor', via: 'approval' },
  appliedTime: 1,
  changes: approval.preview,
  inverse: emptyChanges('0'),
  touched: [],
  outcome: {},
  ...extra,
});

/** Records decisions as the test tells, keeping what it was asked: the change set and its actor. */
class ScriptedActions implements DecisionActions {
  readonly approved: Array<{ actor: OperationActor; change: ApprovedChange }> = [];
  readonly rejected: OperationActor[] = [];
  constructor(private readonly record: (change: ApprovedChange | null) => OperationRecord) {}
  async applyApproved(_toolCallId: string, actor: OperationActor, change: ApprovedChange) {
    this.approved.push({ actor, change });
    const record = this.record(change);
    return {
      application: { status: 'applied' as const, appliedBy: 'server' as const, operationId: record.operationId },
      record,
      replayed: false,
    };
  }
  async reject(_toolCallId: string, actor: OperationActor) {
    this.rejected.push(actor);
    return { record: this.record(null), replayed: false };
  }
}

describe(PendingInterruptSettler.name, () => {
  let outcomes: HitlOutcome[];
  beforeEach(() => (outcomes = []));
  const settler = () => new PendingInterruptSettler({ interrupt: (outcome) => outcomes.push(outcome) });

  it('applies an approved proposal as one operation and tells the model and the caller how (server)', async () => {
    const actions = new ScriptedActions(() => recordOf('applied'));
    const settled = await settler().settle(
      pendingOf(approval),
      { approved: true, feedback: 'thanks' },
      actions,
      editor,
    );
    expect(actions.approved).toEqual([
      {
        actor: { userId: 'eddie', role: 'editor', via: 'approval' },
        change: { changes: approval.preview, basis },
      },
    ]);
    expect(JSON.parse(settled.content)).toEqual({
      status: 'approved',
      message: 'The user approved the proposal and it was applied to the graph.',
      feedback: 'thanks',
    });
    expect(settled.resolution).toEqual({
      toolCallId: 'call_create',
      status: 'approved',
      operationId: 'ai_t:call_create',
      appliedBy: 'server',
      changes: approval.preview,
      message: 'The user approved the proposal and it was applied to the graph.',
    });
    expect(outcomes).toEqual(['approved']);
  });

  it('hands an approved proposal to the client with HITL_APPLY=client, under its operation id', async () => {
    const settled = await settler().settle(
      pendingOf(approval),
      { approved: true },
      new ScriptedActions(() => recordOf('sent')),
      editor,
    );
    expect(JSON.parse(settled.content)).toEqual({
      status: 'approved',
      message: "The user approved the proposal; it is applied through the user's editor.",
    });
    expect(settled.resolution).toMatchObject({
      status: 'approved',
      appliedBy: 'client',
      operationId: 'ai_t:call_create',
      changes: expect.any(Object),
    });
  });

  it('reports a stale proposal: nothing applied, what changed told to the model and the caller', async () => {
    const changed = [{ kind: 'node' as const, key: 'fetch-api', change: 'modified' as const }];
    const settled = await settler().settle(
      pendingOf(approval),
      { approved: true },
      new ScriptedActions(() => recordOf('stale', { changes: emptyChanges('0'), outcome: { changed } })),
      editor,
    );
    expect(JSON.parse(settled.content)).toEqual({
      status: 'stale',
      message: expect.stringContaining('the graph changed since it was made'),
      changed,
    });
    expect(settled.resolution).toEqual({
      toolCallId: 'call_create',
      status: 'stale',
      operationId: 'ai_t:call_create',
      appliedBy: null,
      message: expect.any(String),
      changed,
    });
    expect(settled.success).toBe(false);
    expect(outcomes).toEqual(['stale']);
  });

  it('reports an approved proposal the graph refused as failed, with the reason and nothing to apply', async () => {
    const settled = await settler().settle(
      pendingOf(approval),
      { approved: true },
      new ScriptedActions(() => recordOf('failed', { outcome: { reason: 'Node "filter-active" not found' } })),
      editor,
    );
    expect(JSON.parse(settled.content)).toEqual({
      status: 'failed',
      message:
        'The user approved the proposal but it could not be applied: Node "filter-active" not found. Nothing was changed.',
    });
    expect(settled.resolution).toMatchObject({ status: 'failed', appliedBy: null });
    expect(outcomes).toEqual(['failed']);
  });

  it('records a rejection, keeping the feedback', async () => {
    const actions = new ScriptedActions(() => recordOf('rejected'));
    const settled = await settler().settle(
      pendingOf(approval),
      { approved: false, feedback: 'not now' },
      actions,
      editor,
    );
    expect(actions.approved).toEqual([]);
    expect(actions.rejected).toEqual([{ userId: 'eddie', role: 'editor', via: 'approval' }]);
    expect(JSON.parse(settled.content)).toEqual({
      status: 'rejected',
      message: 'The user rejected the proposal. Nothing was changed.',
      feedback: 'not now',
    });
    expect(settled.resolution).toMatchObject({ status: 'rejected', appliedBy: null });
    expect(settled.resolution).not.toHaveProperty('changes');
    expect(outcomes).toEqual(['rejected']);
  });

  it('answers a rejection with the approval recorded first (one outcome: a racing approval, or one a crash kept from its commit)', async () => {
    const settled = await settler().settle(
      pendingOf(approval),
      { approved: false },
      new ScriptedActions(() => recordOf('applied')),
      editor,
    );
    expect(JSON.parse(settled.content)).toMatchObject({ status: 'approved' });
    expect(settled.resolution).toMatchObject({ status: 'approved', appliedBy: 'server' });
  });

  describe('approving part of a batch', () => {
    const batch: ProposedAction = {
      type: 'batch',
      payload: {
        actions: [
          proposal,
          {
            type: 'create_edge',
            payload: {
              sourceKey: 'fetch-api',
              sourceHandle: 'R-1',
              targetKey: 'log-errors',
              targetHandle: 'L-0',
              sheet: '0',
            },
            reason: 'wire it',
          },
          { type: 'move_node', payload: { nodeKey: 'root', posX: 1, posY: 2 }, reason: 'tidy' },
        ],
      },
      reason: 'log errors',
    };
    const items = converter
      .convertItems(batch, DEMO_GRAPH_KEY, '0', 'call_batch')
      .map((item, index): PendingItem => ({ itemId: `i${index + 1}`, changes: item.changes, basis }));
    const interrupt: Extract<Interrupt, { kind: 'approval' }> = {
      kind: 'approval',
      toolCallId: 'call_batch',
      proposedAction: batch,
      preview: {
        ...converter.convert(batch, DEMO_GRAPH_KEY, '0', 'call_batch'),
        basis,
        items: items.map((item, index) => ({
          itemId: item.itemId,
          type: (['create_node', 'create_edge', 'move_node'] as const)[index],
          description: `item ${index + 1}`,
        })),
      },
    };
    const merged = (ids: string[]): ActionConversionResult => {
      const chosen = items.filter((item) => ids.includes(item.itemId)).map((item) => item.changes);
      return {
        instructions: chosen.flatMap((part) => part.instructions),
        nodesToCreate: chosen.flatMap((part) => part.nodesToCreate),
        edgesToCreate: chosen.flatMap((part) => part.edgesToCreate),
        nodeKeysToDelete: [],
        edgeKeysToDelete: [],
        sheetId: '0',
      };
    };

    it('applies only the approved items, in one operation, and tells the model both lists', async () => {
      const actions = new ScriptedActions((change) =>
        recordOf('applied', {
          changes: change!.changes,
          outcome: { appliedItems: change!.appliedItems, declinedItems: change!.declinedItems },
        }),
      );
      const settled = await settler().settle(
        pendingOf(interrupt, items),
        { approved: true, approvedItems: ['i1', 'i3'] },
        actions,
        editor,
      );
      expect(actions.approved[0].change).toMatchObject({
        changes: merged(['i1', 'i3']),
        appliedItems: ['i1', 'i3'],
        declinedItems: ['i2'],
      });
      expect(JSON.parse(settled.content)).toEqual({
        status: 'approved',
        message: expect.stringContaining('approved part of the proposal'),
        appliedItems: [
          { itemId: 'i1', description: 'item 1' },
          { itemId: 'i3', description: 'item 3' },
        ],
        declinedItems: [{ itemId: 'i2', description: 'item 2' }],
      });
      expect(settled.resolution).toMatchObject({ appliedItems: ['i1', 'i3'], declinedItems: ['i2'] });
    });

    it.each([
      [['i2'], 'Item i2 (item 2) needs node "log-errors", which item i1 creates'],
      [['i9'], 'approvedItems names no item of this proposal: i9'],
      [[], 'approvedItems names no item'],
    ])('refuses %j with a 400 naming the problem, before anything is decided', async (ids, message) => {
      const actions = new ScriptedActions(() => recordOf('applied'));
      await expect(
        settler().settle(pendingOf(interrupt, items), { approved: true, approvedItems: ids }, actions, editor),
      ).rejects.toMatchObject({ code: 'bad_request', message: expect.stringContaining(message) });
      expect(actions.approved).toEqual([]);
    });

    it('refuses approvedItems on a single proposal, on a question and with approved: false', () => {
      const check = settler();
      expect(() => check.check(pendingOf(approval), { approved: true, approvedItems: ['i1'] })).toThrow(
        /only for a batch/,
      );
      expect(() => check.check(pendingOf(interrupt, items), { approved: false, approvedItems: ['i1'] })).toThrow(
        /approved: true/,
      );
    });
  });

  it('answers or declines a question, with no resolution and nothing decided', async () => {
    const question: Interrupt = {
      kind: 'question',
      toolCallId: 'call_ask',
      questionKind: 'choice',
      question: 'Which sheet?',
      options: ['main', 'data-processing'],
    };
    const actions = new ScriptedActions(() => recordOf('applied'));
    const answered = await settler().settle(pendingOf(question), { approved: true, answer: 'main' }, actions, editor);
    expect(answered).toEqual({ content: JSON.stringify({ status: 'answered', answer: 'main' }), success: true });
    const declined = await settler().settle(pendingOf(question), { approved: false }, actions, editor);
    expect(JSON.parse(declined.content)).toEqual({ status: 'declined' });
    expect(actions.approved).toEqual([]);
    expect(outcomes).toEqual(['answered', 'declined']);
  });

  it('refuses an answer that is not one of the options before anything is settled', async () => {
    const question: Interrupt = {
      kind: 'question',
      toolCallId: 'call_ask',
      questionKind: 'choice',
      question: 'Which sheet?',
      options: ['main', 'data-processing'],
    };
    await expect(
      settler().settle(
        pendingOf(question),
        { approved: true, answer: 'errors' },
        new ScriptedActions(() => recordOf('applied')),
        editor,
      ),
    ).rejects.toMatchObject({ code: 'bad_request' });
    expect(outcomes).toEqual([]);
  });

  it('allows the action a confirm question was asked for on a yes, and nothing for a question asked for nothing', async () => {
    const forAction = { kind: 'delete_node' as const, target: 'error-handler' };
    const asked: Interrupt = {
      kind: 'question',
      toolCallId: 'call_ask',
      questionKind: 'confirm',
      question: 'Delete error-handler?',
      forAction,
    };
    const actions = new ScriptedActions(() => recordOf('applied'));
    const yes = await settler().settle(pendingOf(asked), { approved: true }, actions, editor);
    expect(yes).toEqual({
      content: JSON.stringify({ status: 'answered', answer: 'yes', allows: forAction }),
      success: true,
      allows: forAction,
    });
    const no = await settler().settle(pendingOf(asked), { approved: false }, actions, editor);
    expect(no.allows).toBeUndefined();
    const unrelated: Interrupt = {
      kind: 'question',
      toolCallId: 'call_ask',
      questionKind: 'confirm',
      question: 'Table or list?',
    };
    expect((await settler().settle(pendingOf(unrelated), { approved: true }, actions, editor)).allows).toBeUndefined();
  });
});

describe(supersededResults.name, () => {
  it('declines a pending question, as superseded by a new message', () => {
    const question: Interrupt = {
      kind: 'question',
      toolCallId: 'call_ask',
      questionKind: 'confirm',
      question: 'Go on?',
    };
    const [declined, next] = supersededResults(pendingOf(question), 1_000);
    expect([declined.toolCallId, JSON.parse(declined.content ?? '')]).toEqual([
      'call_ask',
      { status: 'declined', feedback: 'superseded by a new message' },
    ]);
    expect(JSON.parse(next.content ?? '')).toMatchObject({
      status: 'rejected',
      message: expect.stringContaining('Not processed'),
    });
  });

  it('rejects the pending proposal and every later call of its batch, as superseded by a new message', () => {
    const results = supersededResults(pendingOf(approval), 1_000);
    expect(results.map((message) => [message.role, message.toolCallId, JSON.parse(message.content ?? '')])).toEqual([
      [
        'tool',
        'call_create',
        {
          status: 'rejected',
          message: expect.stringContaining('sent a new message'),
          feedback: 'superseded by a new message',
        },
      ],
      [
        'tool',
        'call_next',
        {
          status: 'rejected',
          message: expect.stringContaining('Not processed'),
          feedback: 'superseded by a new message',
        },
      ],
    ]);
    expect(results.every((message) => message.createdTime === 1_000)).toBe(true);
    // Each names the tool of its call and did nothing, as the commit validator requires.
    expect(results.map((message) => [message.toolName, message.success, message.durationMs])).toEqual([
      [pendingOf(approval).toolName, false, 0],
      [pendingOf(approval).remainingToolCalls[0].function.name, false, 0],
    ]);
  });

  it('tells what a recorded decision did instead of "rejected" (a crash kept it out of the thread)', () => {
    const decided = new Map([
      ['call_create', recordOf('applied')],
      ['call_next', recordOf('applied', { operationId: 'ai_t:call_next', toolCallId: 'call_next' })],
    ]);
    const [first, next] = supersededResults(pendingOf(approval), 1_000, 'en', decided);
    expect(JSON.parse(first.content ?? '')).toMatchObject({ status: 'approved' });
    expect(first.success).toBe(true);
    expect(JSON.parse(next.content ?? '')).toMatchObject({ status: 'applied', appliedBy: 'server' });
  });

  it('tells the model in the AI_LOCALE language, keeping the contract’s status and feedback', () => {
    const [result] = supersededResults(pendingOf(approval), 1_000, 'fr');
    expect(JSON.parse(result.content ?? '')).toEqual({
      status: 'rejected',
      message: "La proposition n'a pas été appliquée : l'utilisateur a envoyé un nouveau message au lieu d'y répondre.",
      feedback: 'superseded by a new message',
    });
  });
});

describe('PendingInterruptSettler in French (AI_LOCALE=fr)', () => {
  it('tells the model the decision in French; statuses and success unchanged', async () => {
    const french = new PendingInterruptSettler(undefined, 'fr');
    const approved = await french.settle(
      pendingOf(approval),
      { approved: true },
      new ScriptedActions(() => recordOf('applied')),
      editor,
    );
    expect(JSON.parse(approved.content)).toEqual({
      status: 'approved',
      message: "L'utilisateur a approuvé la proposition et elle a été appliquée au graph.",
    });
    expect(approved.success).toBe(true);
    const rejected = await french.settle(
      pendingOf(approval),
      { approved: false },
      new ScriptedActions(() => recordOf('rejected')),
      editor,
    );
    expect(JSON.parse(rejected.content).message).toBe("L'utilisateur a refusé la proposition. Rien n'a été modifié.");
    expect(rejected.success).toBe(false);
  });
});

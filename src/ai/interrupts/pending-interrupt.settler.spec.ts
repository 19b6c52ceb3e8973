import { Interrupt } from '../../conversation/interrupt';
import { ProposedAction } from '../../conversation/proposed-action';
import { DEMO_GRAPH_KEY, nbaWorkflowDemo } from '../../graph/demo/nba-workflow.demo';
import { PendingInterrupt } from '../../threads/thread.types';
import { ActionApplication, CheckedAction } from '../actions/action.applier';
import { ActionConverter } from '../actions/action.converter';
import { HitlOutcome } from '../hitl.observer';
import { ApprovedActions, PendingInterruptSettler, supersededResults } from './pending-interrupt.settler';

const proposal: ProposedAction = {
  type: 'create_node',
  payload: { nodeKey: 'log-errors', typeKey: 'log-node', sheet: '0', posX: 820, posY: 300 },
  reason: 'Log the fetch errors',
};
const approval: Extract<Interrupt, { kind: 'approval' }> = {
  kind: 'approval',
  toolCallId: 'call_create',
  proposedAction: proposal,
  preview: new ActionConverter(nbaWorkflowDemo.nodeConfigs).convert(proposal, DEMO_GRAPH_KEY, '0', 'call_create'),
};
const pendingOf = (interrupt: Interrupt): PendingInterrupt => ({
  interrupt,
  toolName: interrupt.kind === 'approval' ? 'propose_create_node' : 'ask_user',
  remainingToolCalls: [
    { id: 'call_next', type: 'function', function: { name: 'propose_delete_edge', arguments: '{}' } },
  ],
  createdTime: 1,
});

/** Where approved proposals go (AppliedActionRecorder), with the outcome the test chooses, recording what it was asked to apply. */
class ScriptedActions implements ApprovedActions {
  readonly applied: CheckedAction[] = [];
  constructor(private readonly outcome: ActionApplication) {}
  async applyApproved(action: CheckedAction): Promise<ActionApplication> {
    this.applied.push(action);
    return this.outcome;
  }
}

describe(PendingInterruptSettler.name, () => {
  let outcomes: HitlOutcome[];
  beforeEach(() => (outcomes = []));
  const settler = () => new PendingInterruptSettler({ interrupt: (outcome) => outcomes.push(outcome) });

  it('applies an approved proposal and tells the model and the caller how (server)', async () => {
    const applier = new ScriptedActions({ status: 'applied', appliedBy: 'server' });
    const settled = await settler().settle(pendingOf(approval), { approved: true, feedback: 'thanks' }, applier);
    expect(applier.applied).toEqual([approval]);
    expect(JSON.parse(settled.content)).toEqual({
      status: 'approved',
      message: 'The user approved the proposal and it was applied to the graph.',
      feedback: 'thanks',
    });
    expect(settled.resolution).toEqual({
      toolCallId: 'call_create',
      status: 'approved',
      appliedBy: 'server',
      changes: approval.preview,
      message: 'The user approved the proposal and it was applied to the graph.',
    });
    expect(outcomes).toEqual(['approved']);
  });

  it('hands an approved proposal to the client with HITL_APPLY=client', async () => {
    const settled = await settler().settle(
      pendingOf(approval),
      { approved: true },
      new ScriptedActions({ status: 'applied', appliedBy: 'client' }),
    );
    expect(JSON.parse(settled.content)).toEqual({
      status: 'approved',
      message: "The user approved the proposal; it is applied through the user's editor.",
    });
    expect(settled.resolution).toMatchObject({ status: 'approved', appliedBy: 'client', changes: expect.any(Object) });
  });

  it('reports an approved proposal that could not be applied as failed, with the reason and nothing to apply', async () => {
    const settled = await settler().settle(
      pendingOf(approval),
      { approved: true },
      new ScriptedActions({ status: 'failed', reason: 'Node "filter-active" not found' }),
    );
    expect(JSON.parse(settled.content)).toEqual({
      status: 'failed',
      message:
        'The user approved the proposal but it could not be applied: Node "filter-active" not found. Nothing was changed.',
    });
    expect(settled.resolution).toEqual({
      toolCallId: 'call_create',
      status: 'failed',
      appliedBy: null,
      message: expect.stringContaining('could not be applied'),
    });
    expect(outcomes).toEqual(['failed']);
  });

  it('rejects without applying anything, keeping the feedback', async () => {
    const applier = new ScriptedActions({ status: 'applied', appliedBy: 'server' });
    const settled = await settler().settle(pendingOf(approval), { approved: false, feedback: 'not now' }, applier);
    expect(applier.applied).toEqual([]);
    expect(JSON.parse(settled.content)).toEqual({
      status: 'rejected',
      message: 'The user rejected the proposal. Nothing was changed.',
      feedback: 'not now',
    });
    expect(settled.resolution).toMatchObject({ status: 'rejected', appliedBy: null });
    expect(settled.resolution).not.toHaveProperty('changes');
    expect(outcomes).toEqual(['rejected']);
  });

  it('answers or declines a question, with no resolution and nothing applied', async () => {
    const question: Interrupt = {
      kind: 'question',
      toolCallId: 'call_ask',
      questionKind: 'choice',
      question: 'Which sheet?',
      options: ['main', 'data-processing'],
    };
    const actions = new ScriptedActions({ status: 'applied', appliedBy: 'server' });
    const answered = await settler().settle(pendingOf(question), { approved: true, answer: 'main' }, actions);
    expect(answered).toEqual({
      content: JSON.stringify({ status: 'answered', answer: 'main' }),
      success: true,
      confirmed: false,
    });
    const declined = await settler().settle(pendingOf(question), { approved: false }, actions);
    expect(JSON.parse(declined.content)).toEqual({ status: 'declined' });
    expect(actions.applied).toEqual([]);
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
        new ScriptedActions({ status: 'applied', appliedBy: 'server' }),
      ),
    ).rejects.toMatchObject({
      code: 'bad_request',
    });
    expect(outcomes).toEqual([]);
  });

  it('reports a confirm question answered yes as confirmed (ask_first)', async () => {
    const confirm: Interrupt = {
      kind: 'question',
      toolCallId: 'call_ask',
      questionKind: 'confirm',
      question: 'Delete error-handler?',
    };
    const yes = await settler().settle(
      pendingOf(confirm),
      { approved: true },
      new ScriptedActions({ status: 'applied', appliedBy: 'server' }),
    );
    expect(yes).toEqual({ content: '{"status":"answered","answer":"yes"}', success: true, confirmed: true });
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
      new ScriptedActions({ status: 'applied', appliedBy: 'server' }),
    );
    expect(JSON.parse(approved.content)).toEqual({
      status: 'approved',
      message: "L'utilisateur a approuvé la proposition et elle a été appliquée au graph.",
    });
    expect(approved.success).toBe(true);
    const rejected = await french.settle(
      pendingOf(approval),
      { approved: false },
      new ScriptedActions({ status: 'applied', appliedBy: 'server' }),
    );
    expect(JSON.parse(rejected.content).message).toBe("L'utilisateur a refusé la proposition. Rien n'a été modifié.");
    expect(rejected.success).toBe(false);
  });
});

import { appErrorThrownBy } from '../../../test/support/app-error-of';
import { declinedContent, settleQuestion } from './ask-user.answer';
import { UserQuestion } from './ask-user.tool';

const choice: UserQuestion = { questionKind: 'choice', question: 'Which season?', options: ['2023', '2024'] };
const confirm: UserQuestion = { questionKind: 'confirm', question: 'Delete fetch-api?' };

describe(settleQuestion.name, () => {
  it('passes a choice answered with one of its options to the model, with the feedback', () => {
    expect(settleQuestion(choice, { approved: true, answer: '2024' })).toEqual({
      status: 'answered',
      content: '{"status":"answered","answer":"2024"}',
    });
    expect(
      JSON.parse(settleQuestion(choice, { approved: true, answer: '2023', feedback: 'regular season only' }).content),
    ).toEqual({
      status: 'answered',
      answer: '2023',
      feedback: 'regular season only',
    });
  });

  it('refuses a choice answer that is not one of the options, or missing (400, nothing settled)', () => {
    for (const answer of ['2025', ' 2024', undefined]) {
      const error = appErrorThrownBy(() => settleQuestion(choice, { approved: true, answer }));
      expect(error).toMatchObject({ code: 'bad_request', statusCode: 400, details: { options: ['2023', '2024'] } });
    }
  });

  it('declines a choice with approved false, which takes no answer', () => {
    expect(settleQuestion(choice, { approved: false })).toEqual({
      status: 'declined',
      content: '{"status":"declined"}',
    });
    expect(appErrorThrownBy(() => settleQuestion(choice, { approved: false, answer: '2024' }))).toMatchObject({
      code: 'bad_request',
    });
  });

  it('answers a confirm question with approved; a yes allows only the action it was asked for, if any', () => {
    expect(settleQuestion(confirm, { approved: true })).toEqual({
      status: 'answered',
      content: '{"status":"answered","answer":"yes"}',
    });
    expect(settleQuestion(confirm, { approved: false })).toEqual({
      status: 'answered',
      content: '{"status":"answered","answer":"no"}',
    });
    const forAction = { kind: 'delete_node' as const, target: 'root' };
    expect(settleQuestion({ ...confirm, forAction }, { approved: true })).toEqual({
      status: 'answered',
      content: JSON.stringify({ status: 'answered', answer: 'yes', allows: forAction }),
      allows: forAction,
    });
    expect(settleQuestion({ ...confirm, forAction }, { approved: false })).not.toHaveProperty('allows');
    expect(appErrorThrownBy(() => settleQuestion(confirm, { approved: true, answer: 'yes' }))).toMatchObject({
      code: 'bad_request',
    });
  });

  it('writes the declined result of a question left unanswered', () => {
    expect(JSON.parse(declinedContent('superseded by a new message'))).toEqual({
      status: 'declined',
      feedback: 'superseded by a new message',
    });
  });
});

import { AppError } from '../../errors/app-error';
import type { ConfirmedAction } from '../../conversation/interrupt';
import { UserQuestion } from './ask-user.tool';

/** The user's reply to a question interrupt, as POST /api/ai/resume and ai:resume carry it. */
export interface QuestionReply {
  approved: boolean;
  answer?: string;
  feedback?: string;
}

/** How a question was settled: the tool result the model receives, and what a yes allows. */
export interface QuestionSettlement {
  status: 'answered' | 'declined';
  /** The tool result: {"status":"answered","answer"} or {"status":"declined"} (plus the feedback when given). */
  content: string;
  /** A confirm question asked for an action and answered yes: that action is allowed. */
  allows?: ConfirmedAction;
}

/**
 * Checks a reply against its question and builds the tool result. Throws
 * bad_request, before anything is stored, so the interrupt stays pending and the user can answer again:
 *   - confirm: `approved` is the answer ("yes" / "no"), `answer` must be absent;
 *   - choice, approved: `answer` must be exactly one of the options;
 *   - choice, approved false: declined, `answer` must be absent.
 */
export function settleQuestion(question: UserQuestion, reply: QuestionReply): QuestionSettlement {
  const feedback = reply.feedback !== undefined && reply.feedback !== '' ? { feedback: reply.feedback } : {};
  if (question.questionKind === 'confirm') {
    if (reply.answer !== undefined) {
      throw AppError.badRequest(
        'A confirm question is answered by approved alone (true: yes, false: no); answer must be absent',
      );
    }
    const answer = reply.approved ? 'yes' : 'no';
    const allows = reply.approved ? question.forAction : undefined;
    return {
      status: 'answered',
      content: JSON.stringify({ status: 'answered', answer, ...(allows ? { allows } : {}), ...feedback }),
      ...(allows ? { allows } : {}),
    };
  }
  if (!reply.approved) {
    if (reply.answer !== undefined)
      throw AppError.badRequest(
        'A declined question takes no answer: send approved true with the answer, or approved false alone',
      );
    return { status: 'declined', content: declinedContent(reply.feedback) };
  }
  const options = question.options ?? [];
  if (reply.answer === undefined || !options.includes(reply.answer)) {
    throw AppError.badRequest('The answer must be one of the options of the question', { options });
  }
  return { status: 'answered', content: JSON.stringify({ status: 'answered', answer: reply.answer, ...feedback }) };
}

/** The tool result of a question left unanswered (declined, or superseded by a new message). */
export function declinedContent(feedback?: string): string {
  return JSON.stringify({ status: 'declined', ...(feedback ? { feedback } : {}) });
}

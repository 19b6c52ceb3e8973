import type { ConfirmedAction } from '../../conversation/interrupt';
import { ACTION_KINDS } from '../../policy/action-policy';
import { describeViolations, JsonSchemaValidator } from './json-schema.validator';
import { conforms, ToolParameters } from './tool-parameters';
import { RegisteredTool } from './tool.registry';

export const ASK_USER_TOOL_NAME = 'ask_user';

/** Bounds of a question: a choice offers 2 to 10 distinct options of at most 200 characters. */
export const QUESTION_MAX_CHARS = 2000;
export const CHOICE_MIN_OPTIONS = 2;
export const CHOICE_MAX_OPTIONS = 10;
export const OPTION_MAX_CHARS = 200;

export type QuestionKind = 'choice' | 'confirm';

/** Longest `forAction.target` (a node or edge key). */
export const TARGET_MAX_CHARS = 200;

/** A valid ask_user call: what the question interrupt shows the user. */
export interface UserQuestion {
  questionKind: QuestionKind;
  question: string;
  /** choice only: the answers the user picks from, in the model's order. */
  options?: string[];
  /** confirm only: the action a yes allows. */
  forAction?: ConfirmedAction;
}

export type AskUserParseResult = { ok: true; question: UserQuestion } | { ok: false; error: string };

/** ask_user's arguments. */
interface AskUserArguments {
  kind: QuestionKind;
  question: string;
  options?: string[];
  forAction?: ConfirmedAction;
}

const ASK_USER_PARAMETERS: ToolParameters<AskUserArguments> = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'question'],
  properties: {
    kind: {
      type: 'string',
      enum: ['choice', 'confirm'],
      description:
        '"confirm": a yes/no question (e.g. before a change the user must agree to); "choice": the user picks one of `options`.',
    },
    question: {
      type: 'string',
      minLength: 1,
      maxLength: QUESTION_MAX_CHARS,
      description: 'The question, in the language of the user.',
    },
    options: {
      type: 'array',
      minItems: CHOICE_MIN_OPTIONS,
      maxItems: CHOICE_MAX_OPTIONS,
      items: { type: 'string', minLength: 1, maxLength: OPTION_MAX_CHARS },
      description: `choice only (required there, absent for confirm): ${CHOICE_MIN_OPTIONS} to ${CHOICE_MAX_OPTIONS} distinct short answers.`,
    },
    forAction: {
      type: 'object',
      additionalProperties: false,
      required: ['kind'],
      description:
        'confirm only: the change this question asks permission for, when the policy requires asking first. A yes allows ' +
        'exactly that kind of change (on that node or edge, when `target` is given) from your next reply on; nothing else.',
      properties: {
        kind: { type: 'string', enum: [...ACTION_KINDS], description: 'The kind of change, e.g. "delete_node".' },
        target: {
          type: 'string',
          minLength: 1,
          maxLength: TARGET_MAX_CHARS,
          description:
            'The key of the node or edge it concerns (e.g. the node to delete). Omit to ask for any of that kind.',
        },
      },
    },
  },
};

const VALIDATOR = new JsonSchemaValidator(ASK_USER_PARAMETERS);

/** ask_user, the question tool, offered to every role whenever tools are. */
export const ASK_USER_TOOL: RegisteredTool<typeof ASK_USER_TOOL_NAME> = Object.freeze({
  name: ASK_USER_TOOL_NAME,
  definition: {
    type: 'function' as const,
    function: {
      name: ASK_USER_TOOL_NAME,
      description:
        'Ask the user a question and wait for the answer: a yes/no confirmation (kind "confirm") or a choice between a few options ' +
        '(kind "choice"). Use it when you cannot go on without the user\'s decision; the conversation pauses and the tool result is ' +
        '{"status":"answered","answer":…} ("yes" or "no" for a confirm question) or {"status":"declined"} (the user chose not to answer).',
      parameters: ASK_USER_PARAMETERS,
    },
  },
});

/**
 * Validates ask_user's arguments strictly (unknown keys refused, options only and always for a
 * choice, distinct, not blank). Errors are written for the model, which gets them as an error tool
 * result; the user never sees an invalid question.
 */
export function parseAskUserCall(args: object): AskUserParseResult {
  const violations = VALIDATOR.validate(args);
  if (!conforms<AskUserArguments>(args, violations)) return invalid(describeViolations(violations));
  const { kind, question, options, forAction } = args;
  if (question.trim() === '') return invalid('question must not be blank');
  if (kind === 'confirm') {
    if (options !== undefined)
      return invalid('options is only for kind "choice"; a confirm question is answered yes or no');
    return {
      ok: true,
      question: { questionKind: 'confirm', question, ...(forAction ? { forAction: { ...forAction } } : {}) },
    };
  }
  if (forAction !== undefined) return invalid('forAction is only for kind "confirm"');
  if (options === undefined)
    return invalid(`options is required for kind "choice" (${CHOICE_MIN_OPTIONS} to ${CHOICE_MAX_OPTIONS} answers)`);
  if (options.some((option) => option.trim() === '')) return invalid('options must not be blank');
  const repeated = options.find((option, index) => options.indexOf(option) !== index);
  if (repeated !== undefined) return invalid(`options must be distinct ("${repeated}" is given twice)`);
  return { ok: true, question: { questionKind: 'choice', question, options: [...options] } };
}

function invalid(problem: string): AskUserParseResult {
  return {
    ok: false,
    error: `Invalid arguments for ${ASK_USER_TOOL_NAME}: ${problem}. Call it again with valid arguments.`,
  };
}

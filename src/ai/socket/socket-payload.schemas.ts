import Ajv, { ValidateFunction } from 'ajv';
import { GRAPH_KEY_MAX_LENGTH, graphKeyProblem } from '../../graph/graph-key.rule';
import { messageSegmentsProblem } from '../blocks/message-segments.checker';
import { MENTION_MAX_CHARS, MENTIONS_MAX } from '../chat-input';
import { MULTITASK_STRATEGIES } from '../multitask-strategy';
import { NODE_KEY_PATTERN, TEXT_MAX_CHARS } from '../dto/chat-request.dto';
import { MAX_BATCH_ACTIONS } from '../tools/write-tool.definitions';
import { MESSAGE_ID_MAX } from './dto/message-id.rule';
import { SocketChatDto } from './dto/socket-chat.dto';
import { SocketResumeDto } from './dto/socket-resume.dto';

/**
 * Compiled checks (ajv) of the socket messages on the hot path, `ai:chat` and `ai:resume`: the same rules
 * as their DTOs' class-validator decorators or stricter (an optional field must be absent, not null;
 * lengths in code points), never looser. A payload they accept is valid for class-validator too
 * (socket-payload.schemas.spec.ts checks it on generated payloads), so it skips the reflective
 * validation (~0.2 ms per message in the service); any other payload goes through
 * class-validator, which gives the error. Unknown keys are refused here as there (additionalProperties).
 */
const ajv = new Ajv({ strict: true, allErrors: false });
ajv.addKeyword({
  keyword: 'messageSegments',
  schemaType: 'boolean',
  validate: (_: boolean, value: unknown) => messageSegmentsProblem(value) === null,
});
ajv.addKeyword({
  keyword: 'graphKey',
  type: 'string',
  schemaType: 'boolean',
  validate: (_: boolean, value: string) => graphKeyProblem(value) === null,
});

const text = (maxLength: number, minLength = 0) => ({ type: 'string', minLength, maxLength });
const messageId = { type: 'integer', minimum: 0, maximum: MESSAGE_ID_MAX };

const chatSchema = {
  type: 'object',
  properties: {
    _id: messageId,
    token: { type: 'string' },
    graphKey: { type: 'string', minLength: 1, maxLength: GRAPH_KEY_MAX_LENGTH, graphKey: true },
    message: text(TEXT_MAX_CHARS, 1),
    segments: { type: 'array', messageSegments: true },
    threadId: text(100, 1),
    mentions: {
      type: 'array',
      maxItems: MENTIONS_MAX,
      items: { ...text(MENTION_MAX_CHARS, 1), pattern: NODE_KEY_PATTERN.source },
    },
    multitaskStrategy: { type: 'string', enum: [...MULTITASK_STRATEGIES] },
  },
  required: ['_id', 'graphKey'],
  anyOf: [
    { properties: { message: {} }, required: ['message'] },
    { properties: { segments: {} }, required: ['segments'] },
  ],
  additionalProperties: false,
};

const resumeSchema = {
  type: 'object',
  properties: {
    _id: messageId,
    token: { type: 'string' },
    threadId: text(100, 1),
    approved: { type: 'boolean' },
    feedback: text(TEXT_MAX_CHARS),
    answer: text(TEXT_MAX_CHARS),
    approvedItems: { type: 'array', maxItems: MAX_BATCH_ACTIONS, items: text(20, 1) },
  },
  required: ['_id', 'threadId', 'approved'],
  additionalProperties: false,
};

/** The compiled check of a DTO class, when it has one. */
export const SOCKET_PAYLOAD_CHECKS = new Map<new () => object, ValidateFunction>([
  [SocketChatDto, ajv.compile(chatSchema)],
  [SocketResumeDto, ajv.compile(resumeSchema)],
]);

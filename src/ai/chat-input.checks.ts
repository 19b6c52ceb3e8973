import type { AppConfig } from '../config/app-config';
import { AppError } from '../errors/app-error';
import type { MessageSegment } from '../conversation/rich-message';
import { documentKeyProblem } from '../graph/arango/arango-document-key';
import { messageSegmentsProblem } from './blocks/message-segments.checker';
import { MENTION_MAX_CHARS, MENTIONS_MAX } from './chat-input';

/**
 * The checks of a message's texts that depend on the configuration (MESSAGE_MAX_CHARS), and of its mentions, made
 * again after the transports' shape checks: a text must be a string (not blank when required), at most
 * MESSAGE_MAX_CHARS (413 payload_too_large).
 */
export function checkText(config: AppConfig, value: string, field: string, required: boolean): string {
  if (typeof value !== 'string') throw AppError.badRequest(`${field} must be a string`);
  if (required && value.trim().length === 0) throw AppError.badRequest(`${field} must not be empty`);
  const max = config.limits.messageMaxChars;
  if (value.length > max) throw new AppError('payload_too_large', `${field} is longer than ${max} characters`);
  return value;
}

/**
 * Mentions are node keys: at most MENTIONS_MAX, each of the characters a node key may hold
 * (ArangoDB's key characters, which Nodius's keys follow: letters, digits and _ - . @ ( ) + , = ; $ ! * ' % :), so no
 * user text reaches a system line of the model's history through them. Repeated keys count once.
 */
export function checkMentions(mentions: string[] | undefined): string[] {
  if (mentions === undefined) return [];
  if (!Array.isArray(mentions) || mentions.length > MENTIONS_MAX) {
    throw AppError.badRequest(`mentions must be an array of at most ${MENTIONS_MAX} node keys`);
  }
  for (const key of mentions) {
    if (typeof key !== 'string' || key.length === 0 || key.length > MENTION_MAX_CHARS) {
      throw AppError.badRequest(`mentions must hold node keys of 1 to ${MENTION_MAX_CHARS} characters`);
    }
    const problem = documentKeyProblem(key);
    if (problem) throw AppError.badRequest(`mention ${JSON.stringify(key)} is not a node key: it ${problem}`);
  }
  return [...new Set(mentions)];
}

/**
 * A rich message's segments (docs/protocol.md §9.6), checked again after the transports' shape checks: text and
 * blocks of known kinds, no unknown key anywhere, every key of the characters of a document key, within the bounds of
 * chat-input.ts (400 bad_request naming the first problem).
 */
export function checkSegments(segments: unknown): MessageSegment[] {
  const problem = messageSegmentsProblem(segments);
  if (problem) throw AppError.badRequest(problem);
  return segments as MessageSegment[];
}

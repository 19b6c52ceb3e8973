import { applyDecorators } from '@nestjs/common';
import { IsInt, Max, Min } from 'class-validator';

/**
 * A socket message's `_id` (docs/protocol.md §4): a client-chosen integer from 0 to 2^53 − 1. Beyond it
 * two ids can be the same double (2^53 and 2^53 + 1), so their answers would mix; a negative or a huge
 * one is refused with the bounds in the message.
 */
export const MESSAGE_ID_MAX = Number.MAX_SAFE_INTEGER;

const BOUNDS = `_id must be an integer from 0 to ${MESSAGE_ID_MAX}`;

export function IsMessageId(): PropertyDecorator {
  return applyDecorators(
    IsInt({ message: BOUNDS }),
    Min(0, { message: BOUNDS }),
    Max(MESSAGE_ID_MAX, { message: BOUNDS }),
  );
}

export function isMessageId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

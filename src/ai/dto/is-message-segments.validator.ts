import { ValidateBy, ValidationOptions } from 'class-validator';
import { messageSegmentsProblem } from '../blocks/message-segments.checker';

/** A rich message's `segments` (PROTOCOL §9.6), by the one check the socket's fast path and the use case share. */
export function IsMessageSegments(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isMessageSegments',
      validator: {
        validate: (value: unknown) => messageSegmentsProblem(value) === null,
        defaultMessage: (args) => messageSegmentsProblem(args?.value) ?? 'segments is invalid',
      },
    },
    options,
  );
}

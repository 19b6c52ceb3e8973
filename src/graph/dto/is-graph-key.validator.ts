import { ValidateBy, ValidationOptions } from 'class-validator';
import { graphKeyProblem } from '../graph-key.rule';

/** A graph key in a request body, by the rule every route shares (graph-key.rule.ts). */
export function IsGraphKey(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isGraphKey',
      validator: {
        validate: (value: unknown) => graphKeyProblem(value) === null,
        defaultMessage: (args) => `${args?.property ?? 'graphKey'} ${graphKeyProblem(args?.value) ?? 'is invalid'}`,
      },
    },
    options,
  );
}

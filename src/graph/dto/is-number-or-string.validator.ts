import { ValidationOptions, ValidateBy, buildMessage } from 'class-validator';

/** A graph or node-type version: Nodius stores numbers, some exports strings ("1.2.0"). */
export function IsNumberOrString(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isNumberOrString',
      validator: {
        validate: (value: unknown) =>
          (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'string',
        defaultMessage: buildMessage((prefix) => `${prefix}$property must be a number or a string`, options),
      },
    },
    options,
  );
}

import { ValidationOptions, ValidateBy, buildMessage } from 'class-validator';

/** An object whose values are all strings, e.g. sheetsList { "0": "main" }. */
export function IsStringRecord(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStringRecord',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.values(value).every((item) => typeof item === 'string'),
        defaultMessage: buildMessage((prefix) => `${prefix}$property must be an object of string values`, options),
      },
    },
    options,
  );
}

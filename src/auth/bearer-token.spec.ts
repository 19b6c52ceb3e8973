import { AppError } from '../errors/app-error';
import { bearerTokenOf, requireBearerToken } from './bearer-token';

describe(bearerTokenOf.name, () => {
  it.each([
    ['Bearer abc.def.ghi', 'abc.def.ghi'],
    ['bearer abc', 'abc'],
    ['Bearer   abc  ', 'abc'],
  ])('reads %j', (header, token) => {
    expect(bearerTokenOf(header)).toBe(token);
  });

  it.each(['Bearer abc junk', 'Bearer abc abc', 'Bearer', 'Bearer   '])('calls %j malformed (null)', (header) => {
    expect(bearerTokenOf(header)).toBeNull();
  });

  it.each([undefined, '', 'Basic dXNlcjpwYXNz', 'Bearerabc', ['Bearer a']])('finds no bearer token in %j', (header) => {
    expect(bearerTokenOf(header)).toBeUndefined();
  });

  it('requires one, saying whether it is missing or malformed', () => {
    expect(requireBearerToken('Bearer t')).toBe('t');
    expect(() => requireBearerToken(undefined)).toThrow(new AppError('unauthorized', 'Missing bearer token'));
    expect(() => requireBearerToken('Bearer t junk')).toThrow(
      'Malformed Authorization header: expected "Bearer <token>"',
    );
  });
});

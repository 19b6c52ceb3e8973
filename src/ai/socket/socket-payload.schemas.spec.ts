import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import fc from 'fast-check';
import { SocketChatDto } from './dto/socket-chat.dto';
import { SocketResumeDto } from './dto/socket-resume.dto';
import { SOCKET_PAYLOAD_CHECKS } from './socket-payload.schemas';
import { validateSocketPayload } from './socket-payload.validator';

/** What class-validator says of a payload, with the options of validateSocketPayload. */
const reflectivelyValid = (dtoClass: new () => object, payload: object) =>
  validateSync(plainToInstance(dtoClass, payload), { whitelist: true, forbidNonWhitelisted: true }).length === 0;

/** Values near every rule's edges: empty, long, control characters, slashes, dots, astral characters, wrong types. */
const edgyString = fc.oneof(
  fc.constantFrom(
    '',
    '.',
    '..',
    'a/b',
    'a\\b',
    'nul\u0000',
    'tab\t',
    'nba-workflow',
    'fetch-api',
    '😀'.repeat(101),
    'x'.repeat(257),
  ),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'grapheme', minLength: 95, maxLength: 105 }),
);
const anyValue = fc.oneof(
  edgyString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(edgyString, { maxLength: 52 }),
);

function payloads(keys: string[]): fc.Arbitrary<Record<string, unknown>> {
  return fc.dictionary(fc.constantFrom(...keys, 'extra'), anyValue, { maxKeys: keys.length + 1 });
}

describe('compiled checks of socket payloads', () => {
  const cases: Array<[string, new () => object, string[], Record<string, unknown>]> = [
    [
      'ai:chat',
      SocketChatDto,
      ['_id', 'token', 'graphKey', 'message', 'threadId', 'mentions'],
      { _id: 1, graphKey: 'nba-workflow', message: 'hi' },
    ],
    [
      'ai:resume',
      SocketResumeDto,
      ['_id', 'token', 'threadId', 'approved', 'feedback', 'answer'],
      { _id: 1, threadId: 'ai_x', approved: true },
    ],
  ];

  it.each(cases)(
    '%s: a payload the compiled check accepts is valid for class-validator too, and is read the same way',
    (_name, dtoClass, keys, base) => {
      const check = SOCKET_PAYLOAD_CHECKS.get(dtoClass)!;
      let accepted = 0;
      fc.assert(
        fc.property(payloads(keys), (overrides) => {
          const payload = { ...base, ...overrides };
          if (!check(payload)) return;
          accepted++;
          expect(reflectivelyValid(dtoClass, payload)).toBe(true);
          expect({ ...validateSocketPayload(dtoClass, payload) }).toEqual({ ...plainToInstance(dtoClass, payload) });
        }),
        { numRuns: 3_000 },
      );
      expect(accepted).toBeGreaterThan(0);
    },
  );

  it('accepts the messages clients send, and refuses what class-validator refuses (the error then comes from it)', () => {
    const chat = SOCKET_PAYLOAD_CHECKS.get(SocketChatDto)!;
    expect(
      chat({
        _id: 1,
        graphKey: 'nba-workflow',
        message: 'What does fetch-api do?',
        threadId: 'ai_x',
        mentions: ['fetch-api'],
        token: 'jwt',
      }),
    ).toBe(true);
    for (const bad of [
      { _id: 1.5, graphKey: 'g', message: 'm' },
      { _id: 1, graphKey: '..', message: 'm' },
      { _id: 1, graphKey: 'a/b', message: 'm' },
      { _id: 1, graphKey: 'g', message: '' },
      { _id: 1, graphKey: 'g', message: 'm', extra: true },
      { _id: 1, graphKey: 'g', message: 'm', mentions: [''] },
    ]) {
      expect(chat(bad)).toBe(false);
      expect(reflectivelyValid(SocketChatDto, bad)).toBe(false);
    }
  });
});

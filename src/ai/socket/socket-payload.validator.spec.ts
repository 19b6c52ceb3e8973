import { AppError } from '../../errors/app-error';
import { SocketChatDto } from './dto/socket-chat.dto';
import { SocketInterruptDto } from './dto/socket-interrupt.dto';
import { SocketRejoinDto } from './dto/socket-rejoin.dto';
import { SocketResumeDto } from './dto/socket-resume.dto';
import { messageIdOf, validateSocketPayload } from './socket-payload.validator';

function rejection(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe(validateSocketPayload.name, () => {
  it('accepts a complete ai:chat message', () => {
    const message = validateSocketPayload(SocketChatDto, {
      _id: 3,
      graphKey: 'nba-workflow',
      message: 'What does fetch-api do?',
      threadId: 'ai_x',
      mentions: ['fetch-api'],
      token: 'jwt',
    });
    expect(message).toBeInstanceOf(SocketChatDto);
    expect(message).toMatchObject({ _id: 3, graphKey: 'nba-workflow', mentions: ['fetch-api'], token: 'jwt' });
  });

  it.each([
    ['an unknown key', { _id: 1, graphKey: 'g', message: 'm', color: 'red' }, 'color'],
    ['a string _id', { _id: '1', graphKey: 'g', message: 'm' }, '_id'],
    ['a fractional _id', { _id: 1.5, graphKey: 'g', message: 'm' }, '_id'],
    ['an empty message', { _id: 1, graphKey: 'g', message: '' }, 'message'],
    [
      '51 mentions',
      { _id: 1, graphKey: 'g', message: 'm', mentions: Array.from({ length: 51 }, (_, i) => `n${i}`) },
      'mentions',
    ],
    ['a numeric token', { _id: 1, graphKey: 'g', message: 'm', token: 42 }, 'token'],
  ])('rejects ai:chat with %s as bad_request naming the field', (_name, payload, field) => {
    const error = rejection(() => validateSocketPayload(SocketChatDto, payload));
    expect(error.code).toBe('bad_request');
    expect(error.message).toContain(field);
  });

  it('checks ai:resume and ai:interrupt with their own fields', () => {
    expect(
      validateSocketPayload(SocketResumeDto, { _id: 2, threadId: 'ai_x', approved: false, feedback: 'no' }),
    ).toMatchObject({ approved: false });
    expect(
      rejection(() => validateSocketPayload(SocketResumeDto, { _id: 2, threadId: 'ai_x', approved: 'yes' })).message,
    ).toContain('approved');
    expect(validateSocketPayload(SocketInterruptDto, { _id: 2 })).toMatchObject({ _id: 2 });
    expect(rejection(() => validateSocketPayload(SocketInterruptDto, { _id: 2, threadId: 'ai_x' })).message).toContain(
      'threadId',
    );
  });

  it.each([
    ['1e308', 1e308],
    ['a negative integer', -1],
    ['2^53, which 2^53 + 1 collides with', 2 ** 53],
  ])('refuses an _id of %s on every event, saying the bounds', (_name, id) => {
    const payloads: Array<[new () => object, object]> = [
      [SocketChatDto, { _id: id, graphKey: 'nba-workflow', message: 'hi' }],
      [SocketResumeDto, { _id: id, threadId: 'ai_x', approved: true }],
      [SocketInterruptDto, { _id: id }],
      [SocketRejoinDto, { _id: id, threadId: 'ai_x', lastSeq: 0 }],
    ];
    for (const [dto, payload] of payloads) {
      const error = rejection(() => validateSocketPayload(dto, payload));
      expect(error.code).toBe('bad_request');
      expect(error.message).toContain(`_id must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`);
    }
    expect(messageIdOf({ _id: id })).toBeNull();
  });

  it('accepts the bounds themselves', () => {
    expect(validateSocketPayload(SocketInterruptDto, { _id: 0 })).toMatchObject({ _id: 0 });
    expect(
      validateSocketPayload(SocketChatDto, { _id: Number.MAX_SAFE_INTEGER, graphKey: 'g', message: 'm' }),
    ).toMatchObject({
      _id: Number.MAX_SAFE_INTEGER,
    });
  });

  it.each([
    ['a string', 'hi'],
    ['null', null],
    ['an array', [1]],
  ])('rejects %s payload', (_name, payload) => {
    expect(rejection(() => validateSocketPayload(SocketChatDto, payload)).code).toBe('bad_request');
  });
});

describe(messageIdOf.name, () => {
  it('reads a numeric _id and nothing else', () => {
    expect(messageIdOf({ _id: 4 })).toBe(4);
    expect(messageIdOf({ _id: '4' })).toBeNull();
    expect(messageIdOf({ _id: Number.NaN })).toBeNull();
    expect(messageIdOf('x')).toBeNull();
    expect(messageIdOf(null)).toBeNull();
  });
});

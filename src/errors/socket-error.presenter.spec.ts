import { resetLogSink, setLogSink } from '../observability/logger';
import { AppError } from './app-error';
import { ERROR_HTTP_STATUS, ErrorCode } from './error-code';
import { LLM_ERROR_MESSAGES } from './llm-error.messages';
import { SocketErrorPresenter } from './socket-error.presenter';

describe(SocketErrorPresenter.name, () => {
  const logged: Array<Record<string, unknown>> = [];
  beforeAll(() => setLogSink((entry) => logged.push(entry as unknown as Record<string, unknown>)));
  afterAll(() => resetLogSink());

  it("passes an error's own user message through (an LLM failure, as the classifier words it), with its code and retryable flag", () => {
    const upstream = new AppError('rate_limit', '429 Too Many Requests', undefined, {
      userMessage: LLM_ERROR_MESSAGES.rate_limit.fr,
    });
    expect(new SocketErrorPresenter('fr').present(upstream)).toEqual({
      error: 'Le service IA est temporairement surchargé (trop de requêtes). Réessayez dans un instant.',
      code: 'rate_limit',
      retryable: true,
    });
  });

  it('passes a budget error through in its locale, without the technical detail', () => {
    const budget = new AppError(
      'budget_exceeded',
      'x',
      { kind: 'total_tokens' },
      { userMessage: LLM_ERROR_MESSAGES.budget_exceeded.fr },
    );
    expect(new SocketErrorPresenter('fr').present(budget)).toEqual({
      error: "Le budget d'utilisation de l'IA est atteint.",
      code: 'budget_exceeded',
      retryable: false,
    });
  });

  it("maps the code of an error's own user message to a listed one too", () => {
    const unavailable = new AppError('store_unavailable', 'down', undefined, { userMessage: 'Réessayez.' });
    expect(new SocketErrorPresenter('fr').present(unavailable)).toEqual({
      error: 'Réessayez.',
      code: 'server_error',
      retryable: true,
    });
  });

  it("gives an LLM code raised without a user message the classifier's text for it", () => {
    expect(new SocketErrorPresenter('en').present(new AppError('provider_not_configured', 'no key'))).toEqual({
      error: LLM_ERROR_MESSAGES.provider_not_configured.en,
      code: 'provider_not_configured',
      retryable: false,
    });
  });

  it.each([
    [
      'en',
      new AppError('thread_busy', 'Another request is running on this thread'),
      'thread_busy',
      true,
      /already answering/,
    ],
    [
      'fr',
      new AppError('thread_busy', 'Another request is running on this thread'),
      'thread_busy',
      true,
      /répond déjà/,
    ],
    ['en', AppError.notFound('Thread not found'), 'not_found', false, /not found/],
    ['fr', new AppError('unauthorized', 'Token expired'), 'unauthorized', false, /session a expiré/],
    [
      'fr',
      new AppError('rate_limit', 'Too many requests', { retryAfterMs: 900 }),
      'rate_limit',
      true,
      /trop de requêtes/,
    ],
  ] as const)('localizes the service code (%s) %#', (locale, error, code, retryable, text) => {
    const presented = new SocketErrorPresenter(locale).present(error);
    expect(presented).toMatchObject({ code, retryable });
    expect(presented.error).toMatch(text);
    expect(presented.error).not.toContain(error.message);
  });

  it('appends the technical detail to bad_request', () => {
    expect(
      new SocketErrorPresenter('fr').present(
        AppError.badRequest('Invalid request: color: property color should not exist'),
      ),
    ).toEqual({
      error: 'La requête est invalide. (Invalid request: color: property color should not exist)',
      code: 'bad_request',
      retryable: false,
    });
  });

  it('maps codes outside the socket protocol list to listed ones', () => {
    const presenter = new SocketErrorPresenter('en');
    expect(presenter.present(AppError.conflict('No pending interrupt on this thread'))).toMatchObject({
      code: 'bad_request',
      retryable: false,
    });
    expect(presenter.present(new AppError('read_only_store', 'read only'))).toMatchObject({ code: 'forbidden' });
    expect(presenter.present(new AppError('store_unavailable', 'down'))).toMatchObject({
      code: 'server_error',
      retryable: true,
    });
  });

  it('sends a conflict the store says to retry (concurrent writes on the thread) as thread_busy, never as a retryable bad_request', () => {
    const contention = new AppError('conflict', 'The thread store is busy with concurrent writes; retry', undefined, {
      retryable: true,
    });
    expect(new SocketErrorPresenter('en').present(contention)).toEqual({
      error: 'The assistant is already answering in this conversation. Please wait for it to finish and try again.',
      code: 'thread_busy',
      retryable: true,
    });
  });

  it('gives every code the retryable flag of docs/protocol.md §4: true for thread_busy, rate_limit, rate_limited, server_error, timeout, network only', () => {
    const presenter = new SocketErrorPresenter('en');
    const retryableWire = new Set(['thread_busy', 'rate_limit', 'rate_limited', 'server_error', 'timeout', 'network']);
    const codes = Object.keys(ERROR_HTTP_STATUS) as ErrorCode[];
    for (const code of codes) {
      for (const retryable of [true, false]) {
        const presented = presenter.present(new AppError(code, 'x', undefined, { retryable }));
        expect({ code, retryable, wire: presented.retryable }).toEqual({
          code,
          retryable,
          wire: retryableWire.has(presented.code),
        });
      }
    }
  });

  it('has a user text of its own for every code, in every locale', () => {
    const codes = (Object.keys(ERROR_HTTP_STATUS) as ErrorCode[]).filter((code) => code !== 'internal');
    for (const locale of ['en', 'fr'] as const) {
      const presenter = new SocketErrorPresenter(locale);
      const fallback = presenter.present(new AppError('internal', 'x')).error;
      for (const code of codes)
        expect({ code, locale, text: presenter.present(new AppError(code, 'x')).error }).not.toMatchObject({
          text: fallback,
        });
    }
  });

  it('turns an unknown error into internal with a correlation id, logged once without leaking the message to the client', () => {
    logged.length = 0;
    const presented = new SocketErrorPresenter('en').present(new TypeError('secret internals'));
    expect(presented.code).toBe('internal');
    expect(presented.retryable).toBe(false);
    expect(presented.error).not.toContain('secret internals');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ event: 'unhandled_error', errorMessage: 'secret internals' });
    expect(presented.error).toContain(String(logged[0].correlationId));
  });
});

import { socketOriginProblem } from './socket-origin.checker';

describe(socketOriginProblem.name, () => {
  it('lets clients without an Origin header through (not a browser, or a same-origin polling request)', () => {
    expect(socketOriginProblem(undefined, 'localhost:3000', [])).toBeNull();
  });

  it("accepts the service's own origin, read from the Host header", () => {
    expect(socketOriginProblem('http://localhost:3000', 'localhost:3000', [])).toBeNull();
    expect(socketOriginProblem('https://ai.example.com', 'ai.example.com:443', [])).toBeNull();
    // A gateway passing its $host (no port): the host decides.
    expect(socketOriginProblem('https://ai.example.com:8443', 'ai.example.com', [])).toBeNull();
  });

  it('refuses a foreign origin, another port of the same host, a null origin and other schemes', () => {
    expect(socketOriginProblem('https://evil.example', 'localhost:3000', [])).toContain('SOCKET_CORS_ORIGINS');
    expect(socketOriginProblem('http://localhost:5173', 'localhost:3000', [])).not.toBeNull();
    expect(socketOriginProblem('http://localhost', 'localhost:3000', [])).not.toBeNull();
    expect(socketOriginProblem('null', 'localhost:3000', [])).not.toBeNull();
    expect(socketOriginProblem('chrome-extension://abc', 'abc', [])).not.toBeNull();
    expect(socketOriginProblem('https://localhost.evil.example', 'localhost', [])).not.toBeNull();
    expect(socketOriginProblem('https://evil.example', undefined, [])).not.toBeNull();
  });

  it('accepts the origins of SOCKET_CORS_ORIGINS exactly, or any with *', () => {
    expect(socketOriginProblem('https://app.example.com', 'ai.internal:3000', ['https://app.example.com'])).toBeNull();
    expect(
      socketOriginProblem('https://app.example.com.evil', 'ai.internal:3000', ['https://app.example.com']),
    ).not.toBeNull();
    expect(socketOriginProblem('https://anything.example', 'ai.internal:3000', ['*'])).toBeNull();
  });
});

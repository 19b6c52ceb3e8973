import { bodyReadErrorBody, isClientGoneError, typedBodyErrorBody } from './body-parser-error.mapper';

describe(bodyReadErrorBody.name, () => {
  it.each([
    [{ type: 'entity.too.large', status: 413 }, 413, 'payload_too_large'],
    [{ type: 'entity.parse.failed', status: 400 }, 400, 'bad_request'],
    [{ type: 'charset.unsupported', status: 415, charset: 'latin-9' }, 415, 'unsupported_media_type'],
    [{ type: 'encoding.unsupported', status: 415, encoding: 'br2' }, 415, 'unsupported_media_type'],
    [{ type: 'request.size.invalid', status: 400 }, 400, 'bad_request'],
    [{ type: 'request.aborted', status: 400 }, 400, 'bad_request'],
    [{ type: 'entity.verify.failed', status: 403, message: 'no' }, 403, 'forbidden'],
    // body-parser wraps a zlib failure in an untyped 400.
    [{ status: 400, message: 'incorrect header check' }, 400, 'bad_request'],
  ])('maps %j to %i %s', (error, statusCode, code) => {
    expect(bodyReadErrorBody(error)).toMatchObject({ statusCode, code, message: expect.any(String) });
  });

  it("leaves the service's own failures (raw-body's stream.* types, anything else) to the caller", () => {
    expect(bodyReadErrorBody({ type: 'stream.not.readable', status: 500 })).toBeNull();
    expect(bodyReadErrorBody(new Error('boom'))).toBeNull();
    // Outside the body parser, an untyped status means nothing.
    expect(typedBodyErrorBody({ status: 400, message: 'x' })).toBeNull();
  });

  it('tells a client that went away', () => {
    expect(isClientGoneError({ type: 'request.aborted' })).toBe(true);
    expect(isClientGoneError({ type: 'entity.too.large' })).toBe(false);
  });
});

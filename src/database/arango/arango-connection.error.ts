/** Thrown when the server stays unreachable, refuses the credentials or the database cannot be made. */
export class ArangoConnectionError extends Error {
  override readonly name = 'ArangoConnectionError';
}

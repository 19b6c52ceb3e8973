/** Injection token of the active ThreadRepository adapter. */
export const THREAD_REPOSITORY = Symbol('THREAD_REPOSITORY');

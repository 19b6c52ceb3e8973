/** Injection token of the MemoryRepository adapter chosen from STORE. */
export const MEMORY_REPOSITORY = Symbol('MEMORY_REPOSITORY');

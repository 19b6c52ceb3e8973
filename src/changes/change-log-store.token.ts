/** Injection token of the ChangeLogStore (provided by the persistence module of the configured store). */
export const CHANGE_LOG_STORE = Symbol('CHANGE_LOG_STORE');

/** Injection token of the OperationRepository (provided by the persistence module of the configured store). */
export const OPERATION_REPOSITORY = Symbol('OPERATION_REPOSITORY');

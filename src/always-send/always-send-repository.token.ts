/** Injection token of the AlwaysSendRepository adapter chosen by PersistenceModule. */
export const ALWAYS_SEND_REPOSITORY = Symbol('ALWAYS_SEND_REPOSITORY');

/** Injection token of the AutomationRepository adapter chosen by PersistenceModule. */
export const AUTOMATION_REPOSITORY = Symbol('AUTOMATION_REPOSITORY');

/** Injection token of the AutomationRepository adapter chosen by PersistenceModule (docs/persistence.md). */
export const AUTOMATION_REPOSITORY = Symbol('AUTOMATION_REPOSITORY');

/** Injection token of the ActionPolicyRepository adapter chosen by PersistenceModule (docs/persistence.md). */
export const ACTION_POLICY_REPOSITORY = Symbol('ACTION_POLICY_REPOSITORY');

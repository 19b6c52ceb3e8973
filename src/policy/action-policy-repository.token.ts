/** Injection token of the ActionPolicyRepository adapter chosen by PersistenceModule. */
export const ACTION_POLICY_REPOSITORY = Symbol('ACTION_POLICY_REPOSITORY');

/** Injection token of the ProviderConfigRepository adapter chosen by PersistenceModule. */
export const PROVIDER_CONFIG_REPOSITORY = Symbol('PROVIDER_CONFIG_REPOSITORY');

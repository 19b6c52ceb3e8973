/** Injection token of the validated ProviderRegistry (config/providers.json), exported by ProvidersModule. */
export const PROVIDER_REGISTRY = Symbol('PROVIDER_REGISTRY');

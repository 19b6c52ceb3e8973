import { Principal } from './principal';

/** Every caller when AUTH_MODE=none (development only). */
export const ANONYMOUS_PRINCIPAL: Principal = Object.freeze({
  userId: 'anonymous',
  workspace: 'default',
  role: 'admin' as const,
});

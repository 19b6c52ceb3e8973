import { SetMetadata } from '@nestjs/common';
import { Role } from './principal';

export const REQUIRED_ROLES_KEY = 'requiredRoles';

/** Restricts a route to the given roles (403 forbidden otherwise). */
export const RequireRole = (...roles: Role[]) => SetMetadata(REQUIRED_ROLES_KEY, roles);

import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { PRINCIPAL_REQUEST_KEY } from '../../auth/current-principal.decorator';
import type { Principal } from '../../auth/principal';
import { MemberRoles } from './member-roles';

/** Every authenticated HTTP request tells MemberRoles the role its token carried (in the background). */
@Injectable()
export class MemberRoleInterceptor implements NestInterceptor {
  constructor(private readonly roles: MemberRoles) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') {
      const principal = context.switchToHttp().getRequest<Record<string, unknown>>()[PRINCIPAL_REQUEST_KEY] as
        Principal | undefined;
      if (principal) void this.roles.seen(principal);
    }
    return next.handle();
  }
}

import { Injectable } from '@nestjs/common';
import { Logger } from '../../observability/logger';
import { canEdit, Principal } from '../../auth/principal';
import type { AiNamespace, AiServerSocket } from './ai-server-socket';
import type { AiApprovalPendingEvent } from './ai-socket.events';

/** The Socket.IO room of a workspace's editors and admins, who answer its automation runs' interrupts. */
export function approvalRoom(workspace: string): string {
  return `approvals:${workspace}`;
}

/** Longest a timer may wait (setTimeout's limit); a later expiry is re-armed from there. */
const TIMER_MAX_MS = 2 ** 31 - 1;

const logger = new Logger('gateway');

/**
 * `ai:approval_pending`: tells the editors and admins connected on `/ai` that an
 * automation run waits for them. Sockets join their workspace's room when they connect (AiGateway),
 * by their handshake principal, for as long as their handshake token vouches for it: at its expiry
 * the socket leaves the room (previews of proposed changes are not for a principal nobody vouches for
 * any more; a client reconnects with a fresh token to hear them again). With the Socket.IO Redis
 * adapter a room reaches every instance.
 */
@Injectable()
export class ApprovalPendingNotifier {
  private namespace: AiNamespace | null = null;

  /** Called by the gateway once its namespace exists. */
  attach(namespace: AiNamespace): void {
    this.namespace = namespace;
  }

  /**
   * A connected socket joins its workspace's room when its principal may answer approvals, until
   * `expiresAt` (its handshake token's expiry; undefined: a token without one, or AUTH_MODE=none).
   */
  join(socket: AiServerSocket, principal: Principal | undefined, expiresAt?: number): void {
    if (!principal || !canEdit(principal)) return;
    const room = approvalRoom(principal.workspace);
    if (expiresAt !== undefined && expiresAt <= Date.now()) return;
    void socket.join(room);
    if (expiresAt === undefined) return;
    let timer: NodeJS.Timeout;
    const arm = () => {
      const wait = expiresAt - Date.now();
      if (wait <= 0) {
        void socket.leave(room);
        logger.info('approval_room_left', {
          socketId: socket.id,
          workspace: principal.workspace,
          reason: 'token_expired',
        });
        return;
      }
      timer = setTimeout(arm, Math.min(wait, TIMER_MAX_MS));
      timer.unref();
    };
    arm();
    socket.once('disconnect', () => clearTimeout(timer));
  }

  approvalPending(workspace: string, event: AiApprovalPendingEvent): void {
    this.namespace?.to(approvalRoom(workspace)).emit('ai:approval_pending', event);
  }
}

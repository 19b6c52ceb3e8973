import { Injectable } from '@nestjs/common';
import { canEdit, Principal } from '../../auth/principal';
import type { AiNamespace, AiServerSocket } from './ai-server-socket';
import type { AiApprovalPendingEvent } from './ai-socket.events';

/** The Socket.IO room of a workspace's editors and admins, who answer its automation runs' interrupts. */
export function approvalRoom(workspace: string): string {
  return `approvals:${workspace}`;
}

/**
 * `ai:approval_pending`: tells the editors and admins connected on `/ai` that an
 * automation run waits for them. Sockets join their workspace's room when they connect (AiGateway),
 * by their handshake principal; with the Socket.IO Redis adapter a room reaches every instance.
 */
@Injectable()
export class ApprovalPendingNotifier {
  private namespace: AiNamespace | null = null;

  /** Called by the gateway once its namespace exists. */
  attach(namespace: AiNamespace): void {
    this.namespace = namespace;
  }

  /** A connected socket joins its workspace's room when its principal may answer approvals. */
  join(socket: AiServerSocket, principal: Principal | undefined): void {
    if (principal && canEdit(principal)) void socket.join(approvalRoom(principal.workspace));
  }

  approvalPending(workspace: string, event: AiApprovalPendingEvent): void {
    this.namespace?.to(approvalRoom(workspace)).emit('ai:approval_pending', event);
  }
}

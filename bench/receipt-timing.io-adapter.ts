import { INestApplicationContext } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import type { ServerOptions, Socket } from 'socket.io';

type SocketMiddleware = (socket: Socket, next: (error?: Error) => void) => void;

/**
 * The Socket.IO adapter the app uses by default (IoAdapter), plus a per-socket packet middleware
 * that reports every incoming event the moment Socket.IO has decoded it, before the gateway's
 * handler runs: where "a socket event received by the gateway" starts.
 */
export class ReceiptTimingIoAdapter extends IoAdapter {
  constructor(
    app: INestApplicationContext,
    private readonly onReceipt: (event: string, payload: unknown) => void,
  ) {
    super(app);
  }

  override create(
    port: number,
    options?: ServerOptions & { namespace?: string; server?: unknown },
  ): ReturnType<IoAdapter['create']> {
    const created = super.create(port, options);
    // With a namespace option this is the gateway's Namespace; both kinds take connection middleware.
    (created as unknown as { use(middleware: SocketMiddleware): void }).use((socket, next) => {
      socket.use(([event, payload], nextPacket) => {
        this.onReceipt(String(event), payload);
        nextPacket();
      });
      next();
    });
    return created;
  }
}

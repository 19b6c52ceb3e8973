import { TransferListItem, Worker } from 'node:worker_threads';

/** A thread's answer to one request: with `error`, the request fails with that message. */
export interface WorkerThreadReply {
  id: number;
  error?: string;
}

/** One request's exchange with the thread, for a request answered in several replies. */
export interface WorkerThreadExchange<Result> {
  /** The request's id, which every message of the exchange carries. */
  readonly id: number;
  /** Sends the thread another message of this exchange. */
  post(message: unknown, transfer?: readonly TransferListItem[]): void;
  resolve(result: Result | PromiseLike<Result>): void;
  reject(error: Error): void;
}

export interface WorkerThreadHostOptions {
  /** Names the thread in the errors of the requests it fails: `<name> stopped`, `<name> exited with code <n>`. */
  name: string;
  /** The thread stops after this long without a request waiting, giving its memory back. */
  idleMs: number;
  /** Starts the thread (its script, its data, its Node options); throws when it cannot start. */
  create: () => Worker;
  /** A message of the thread that answers no request (one without a numeric `id`, such as a line to log). */
  onNotice?: (message: unknown) => void;
  /** Whether the thread may stop for idleness, asked when the last request waiting settles (default: it may). */
  mayStopIdle?: () => boolean;
  /** The thread failed or exited on its own; called before the requests waiting fail with `error`. */
  onEnded?: (error: Error) => void;
}

interface Waiting {
  receive(reply: unknown): void;
  fail(error: Error): void;
}

/**
 * One worker thread behind a host class: started by the first request, stopped after `idleMs`
 * without one, each request waiting under its id for the replies that carry it. When the thread
 * fails or exits, the requests waiting fail and the next request starts a new thread. The thread
 * never keeps the process alive on its own: whoever waits for a reply holds its own work open.
 */
export class WorkerThreadHost {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: WorkerThreadHostOptions) {}

  /** A thread is running (or starting). */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Requests sent and not answered yet. */
  get pending(): number {
    return this.waiting.size;
  }

  /**
   * Sends `message(id)` to the thread, started if none runs (throws here when it cannot start), and
   * settles with the one reply carrying `id`: rejected when it has an `error`.
   */
  request<Reply extends WorkerThreadReply>(
    message: (id: number) => unknown,
    transfer?: readonly TransferListItem[],
  ): Promise<Reply> {
    return this.exchange<Reply, Reply>(
      message,
      (reply, exchange) =>
        reply.error !== undefined ? exchange.reject(new Error(reply.error)) : exchange.resolve(reply),
      transfer,
    );
  }

  /**
   * Like `request`, for a request answered in several replies: `receive` is given each reply
   * carrying the id until it settles the exchange; a `receive` that throws fails it.
   */
  exchange<Reply, Result>(
    message: (id: number) => unknown,
    receive: (reply: Reply, exchange: WorkerThreadExchange<Result>) => void,
    transfer?: readonly TransferListItem[],
  ): Promise<Result> {
    const worker = this.worker ?? this.start();
    this.cancelIdleStop();
    const id = ++this.nextId;
    return new Promise<Result>((resolve, reject) => {
      const waiting: Waiting = {
        receive: (reply) => {
          try {
            receive(reply as Reply, exchange);
          } catch (error) {
            exchange.reject(error instanceof Error ? error : new Error(String(error)));
          }
        },
        fail: reject,
      };
      const settled = () => {
        if (this.waiting.get(id) !== waiting) return;
        this.waiting.delete(id);
        if (this.waiting.size === 0 && (this.options.mayStopIdle?.() ?? true)) this.scheduleIdleStop();
      };
      const exchange: WorkerThreadExchange<Result> = {
        id,
        post: (next, nextTransfer) => worker.postMessage(next, nextTransfer),
        resolve: (result) => {
          settled();
          resolve(result);
        },
        reject: (error) => {
          settled();
          reject(error);
        },
      };
      this.waiting.set(id, waiting);
      worker.postMessage(message(id), transfer);
    });
  }

  /** Stops the thread now; the requests still waiting fail. */
  async stop(): Promise<void> {
    this.cancelIdleStop();
    const worker = this.worker;
    this.worker = null;
    // Taken now: a request made while this thread terminates goes to the next one.
    const waiting = this.takeWaiting();
    if (worker) await worker.terminate();
    for (const entry of waiting) entry.fail(new Error(`${this.options.name} stopped`));
  }

  private start(): Worker {
    const worker = this.options.create();
    worker.unref();
    worker.on('message', (message: { id?: unknown } | null) => {
      const id = message?.id;
      if (typeof id === 'number') this.waiting.get(id)?.receive(message);
      else this.options.onNotice?.(message);
    });
    const ended = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.cancelIdleStop();
      this.options.onEnded?.(error);
      for (const entry of this.takeWaiting()) entry.fail(error);
    };
    worker.on('error', ended);
    worker.on('exit', (code) => ended(new Error(`${this.options.name} exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private scheduleIdleStop(): void {
    this.cancelIdleStop();
    this.idleTimer = setTimeout(() => void this.stop(), this.options.idleMs);
    this.idleTimer.unref();
  }

  private cancelIdleStop(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private takeWaiting(): Waiting[] {
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    return waiting;
  }
}

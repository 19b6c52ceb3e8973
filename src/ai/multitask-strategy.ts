/**
 * What a message sent to a thread while a run is active on it does (docs/protocol.md §9.7), on every instance:
 *  - `reject` (the default): refused with thread_busy (409, retryable), as if no strategy were given;
 *  - `enqueue`: waits until the runs before it are done, in order, then runs (at most AI_ENQUEUE_MAX waiting per
 *    thread; one more is refused with rate_limited, 429);
 *  - `interrupt`: the active run is stopped, its text so far kept, then this message runs;
 *  - `rollback`: the active run is stopped and its turn discarded, then this message runs.
 * With no run active every strategy runs the message at once.
 */
export const MULTITASK_STRATEGIES = ['reject', 'enqueue', 'interrupt', 'rollback'] as const;

export type MultitaskStrategy = (typeof MULTITASK_STRATEGIES)[number];

/**
 * A service process that dies mid-round: it runs one question (AskQuestion) and is killed (SIGKILL, no
 * cleanup, lease left behind) when the loop tries to commit its first round, i.e. after the LLM
 * answered and the tools ran, before anything of that round reached the store. Run with
 * test/support/swc-register.js; reports the thread id over IPC, then dies.
 */
import { Principal } from '../../src/auth/principal';
import { ThreadRepository } from '../../src/threads/thread.repository';
import { AgentHarness, RecordingSink } from './agent.harness';

export interface CrashRequest {
  dataDir: string;
  env: Record<string, string>;
  principal: Principal;
  graphKey: string;
  message: string;
}

/** Every method passes through, except the commit of a round (operation ids `<run>:<n>`), which kills the process. */
function dyingOnRoundCommit(repository: ThreadRepository): ThreadRepository {
  return new Proxy(repository, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property !== 'commit' || typeof value !== 'function')
        return typeof value === 'function' ? value.bind(target) : value;
      return (...[threadId, commit, end]: Parameters<ThreadRepository['commit']>) => {
        if (/:\d+$/.test(commit.operationId)) process.kill(process.pid, 'SIGKILL');
        return (value as ThreadRepository['commit']).call(target, threadId, commit, end);
      };
    },
  });
}

process.once('message', (request: CrashRequest) => {
  void (async () => {
    const harness = await AgentHarness.create({
      dataDir: request.dataDir,
      env: request.env,
      wrapRepository: dyingOnRoundCommit,
    });
    const sink = new RecordingSink();
    const originalThread = sink.thread.bind(sink);
    sink.thread = (threadId: string) => {
      originalThread(threadId);
      process.send?.({ threadId });
    };
    await harness.agent.chat(
      request.principal,
      { graphKey: request.graphKey, message: request.message },
      sink,
      new AbortController().signal,
    );
    process.send?.({ survived: true });
  })();
});

/**
 * The overhead bench's baseline in a process of its own, as the service runs in its own: the bare
 * openai SDK sending given request bodies to the scripted server. Messages: `{ baseURL, bodies }`
 * once, then `{ send: index }` for each request, answered with `{ sent: { startedAt, cpuMs } }`
 * after the answer was read: when create() was called (monotonicMs()) and the CPU time of this
 * process from then until the request body was written.
 */
import OpenAI from 'openai';
import { monotonicMs } from './monotonic-clock';
import { onUpstreamRequestSent } from './upstream-request-sent.probe';

let client: OpenAI | undefined;
let bodies: unknown[] = [];
let startedCpu: NodeJS.CpuUsage | undefined;
let cpuMs = Number.NaN;

onUpstreamRequestSent(() => {
  if (!startedCpu) return;
  const cpu = process.cpuUsage(startedCpu);
  cpuMs = (cpu.user + cpu.system) / 1000;
  startedCpu = undefined;
});

async function send(index: number): Promise<{ startedAt: number; cpuMs: number }> {
  cpuMs = Number.NaN;
  startedCpu = process.cpuUsage();
  const startedAt = monotonicMs();
  const stream = await (client as OpenAI).chat.completions.create(
    bodies[index] as OpenAI.Chat.ChatCompletionCreateParamsStreaming,
  );
  for await (const chunk of stream) void chunk;
  return { startedAt, cpuMs };
}

process.on('message', (message: { baseURL?: string; bodies?: unknown[]; send?: number }) => {
  if (message.baseURL) {
    client = new OpenAI({ apiKey: 'bench', baseURL: message.baseURL, maxRetries: 0 });
    bodies = message.bodies ?? [];
    process.send?.({ ready: true });
  } else if (message.send !== undefined) {
    void send(message.send).then(
      (sent) => process.send?.({ sent }),
      (error: unknown) => process.send?.({ error: String(error) }),
    );
  } else {
    process.exit(0);
  }
});

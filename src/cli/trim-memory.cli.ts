import 'reflect-metadata';
import type { MemoryRepository } from '../memory/memory.repository';
import { MEMORY_REPOSITORY } from '../memory/memory-repository.token';
import { memoryRetentionOf } from '../memory/retention/memory.retention';
import { CliArguments } from './cli-arguments';
import { CliIo, openCliContext, runCli } from './cli-context';

const USAGE = 'Usage: npm run ai:trim-memory';

/**
 * `npm run ai:trim-memory`: removes, in every workspace of the
 * configured store, the short-term summaries older than MEMORY_L1_RETENTION_DAYS (30) and the
 * long-term ones older than MEMORY_L2_RETENTION_DAYS (90) — what the service's daily job does — and
 * prints how many went. Exit code 0, or 2 on a usage error.
 */
export async function trimMemory(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  try {
    CliArguments.parse(argv, {});
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const context = await openCliContext(env);
  try {
    const { level1RetentionDays, level2RetentionDays } = context.config.memory;
    const trimmed = await memoryRetentionOf(
      context.config,
      context.app.get<MemoryRepository>(MEMORY_REPOSITORY, { strict: false }),
    ).trim();
    const policy = (days: number) => (days > 0 ? `older than ${days} days` : 'kept (retention 0)');
    io.stdout.write(
      [
        `Memory retention on the ${context.config.store.kind} store:`,
        `  level 1 (short-term summaries) ${policy(level1RetentionDays)}: ${trimmed.level1} removed`,
        `  level 2 (long-term summaries)  ${policy(level2RetentionDays)}: ${trimmed.level2} removed`,
        '',
      ].join('\n'),
    );
    return 0;
  } finally {
    await context.close();
  }
}

if (require.main === module) runCli(trimMemory);

import { Inject, Injectable } from '@nestjs/common';
import { AlwaysSendList, EMPTY_ALWAYS_SEND } from './always-send';
import type { AlwaysSendDocument, AlwaysSendRepository } from './always-send.repository';
import { ALWAYS_SEND_REPOSITORY } from './always-send-repository.token';

/**
 * Each graph's always-sent list (docs/protocol.md §9.6), on the ALWAYS_SEND_REPOSITORY adapter the persistence module
 * chose. What the list puts in the prompt, and whether it fits its share, is the agent's (src/ai/prompts).
 */
@Injectable()
export class AlwaysSendService {
  constructor(@Inject(ALWAYS_SEND_REPOSITORY) private readonly repository: AlwaysSendRepository) {}

  /** The graph's list; an empty one when it never stored any. */
  async get(workspace: string, graphKey: string): Promise<AlwaysSendList> {
    return (await this.repository.get(workspace, graphKey)) ?? { ...EMPTY_ALWAYS_SEND, nodeKeys: [], nodeTypes: [] };
  }

  /** Replaces the graph's list, keys de-duplicated in their order. */
  put(workspace: string, graphKey: string, list: AlwaysSendDocument, now = Date.now()): Promise<AlwaysSendList> {
    return this.repository.put(
      workspace,
      graphKey,
      { nodeKeys: [...new Set(list.nodeKeys)], nodeTypes: [...new Set(list.nodeTypes)] },
      now,
    );
  }
}

import { RecordedRequest, ScriptedTurn } from '../test/support/scripted-llm-server';

/**
 * Conversation memory's summary calls go to the same scripted model in the background,
 * between the conversation's own requests: a scenario tells them apart by their tool and answers them
 * with a summary, so they never take an answer scripted for a question.
 */
export const MEMORY_SUMMARY: ScriptedTurn = {
  toolCalls: [
    {
      name: 'record_summary',
      arguments: {
        summary: 'The user asked what fetch-api does, again and again.',
        nodesMentioned: ['fetch-api'],
        keyFindings: [],
        toolsUsed: [],
        topics: ['fetch-api'],
      },
    },
  ],
};

export const isMemorySummaryCall = (recorded: RecordedRequest): boolean =>
  JSON.stringify(recorded.body?.tools ?? []).includes('record_summary');

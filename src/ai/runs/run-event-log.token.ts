/** The RunEventLog of the instance: in memory, or Redis Streams with REDIS_URL (AiModule chooses). */
export const RUN_EVENT_LOG = Symbol('RUN_EVENT_LOG');

/** The instance's RedisConnection, or null without REDIS_URL (single instance: nothing of Redis runs). */
export const REDIS_CONNECTION = Symbol('REDIS_CONNECTION');

/** The LiveOverlayWriter of the instance: local, or shared through Redis with REDIS_URL (GraphModule chooses). */
export const LIVE_OVERLAY_WRITER = Symbol('LIVE_OVERLAY_WRITER');

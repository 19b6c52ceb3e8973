/** Small persisted preferences of the page (the token only for the tab's session). */
export const storedToken = {
  read: (): string => sessionStorage.getItem('gai.token') ?? '',
  write: (token: string) =>
    token ? sessionStorage.setItem('gai.token', token) : sessionStorage.removeItem('gai.token'),
};

const RECENT_KEY = 'gai.recentGraphs';
const RECENT_MAX = 8;

/** Graph keys opened before, most recent first (the service has no route that lists graphs). */
export const recentGraphs = {
  read: (): string[] => {
    try {
      const value: unknown = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]');
      return Array.isArray(value) ? value.filter((key): key is string => typeof key === 'string') : [];
    } catch {
      return [];
    }
  },
  remember: (graphKey: string): string[] => {
    const keys = [graphKey, ...recentGraphs.read().filter((key) => key !== graphKey)].slice(0, RECENT_MAX);
    localStorage.setItem(RECENT_KEY, JSON.stringify(keys));
    return keys;
  },
};

/**
 * 32-bit hash of a feature string: FNV-1a over UTF-16 code units, then murmur3's finaliser so that
 * both the low bits (bucket) and the top bit (sign) are well mixed. Pure and stable across runs and
 * machines: the local embedding's vectors depend on it, so it must never change within a version.
 */
export function hashFeature(feature: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < feature.length; index++) {
    hash ^= feature.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

import { randomBytes } from 'node:crypto';

/** `pc_` + base36 creation time + 64 random bits: unique without coordination, sortable by creation. */
export function generateProviderConfigId(now: number): string {
  return `pc_${now.toString(36).padStart(9, '0')}${randomBytes(8).toString('hex')}`;
}

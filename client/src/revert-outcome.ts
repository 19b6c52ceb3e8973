import type { RefusedRevert } from './protocol';

const REASONS: Record<RefusedRevert['reason'], string> = {
  changed_since: 'it was changed after the assistant changed it',
  depends_on_refused: 'it depends on a part that was kept',
};

/**
 * One line per part an undo or restore did not revert (docs/protocol.md §9.4, `refused`), e.g.
 * `Node "filter-active" was kept as it is: it was changed after the assistant changed it`.
 */
export function describeRefused(refused: ReadonlyArray<Pick<RefusedRevert, 'kind' | 'key' | 'reason'>>): string[] {
  return refused.map(
    (part) => `${part.kind === 'node' ? 'Node' : 'Edge'} "${part.key}" was kept as it is: ${REASONS[part.reason]}`,
  );
}

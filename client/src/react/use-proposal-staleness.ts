import { useEffect, useState } from 'react';
import { checkProposal, type ProposalStaleness } from '../proposal-staleness';
import type { ApprovalInterrupt, GraphDocument } from '../protocol';

/**
 * The pending proposal checked against the graph each time either changes (`checkProposal`): null while there is
 * nothing to check, while it is being checked, or when it cannot be (no basis, no WebCrypto). Load the graph again
 * while a proposal waits (an edit elsewhere, through the change feed) to see it turn stale.
 */
export function useProposalStaleness(
  proposal: ApprovalInterrupt | null,
  graph: Pick<GraphDocument, 'nodes' | 'edges'> | null,
): ProposalStaleness | null {
  const [staleness, setStaleness] = useState<{ of: ApprovalInterrupt; value: ProposalStaleness } | null>(null);
  useEffect(() => {
    if (!proposal || !graph) return;
    let live = true;
    checkProposal(proposal, graph).then(
      (value) => {
        if (live) setStaleness(value ? { of: proposal, value } : null);
      },
      () => {
        if (live) setStaleness(null);
      },
    );
    return () => {
      live = false;
    };
  }, [proposal, graph]);
  return staleness && staleness.of === proposal ? staleness.value : null;
}

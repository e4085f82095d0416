/** The approvals queue through react-query, and the operator's decisions. */
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { ApprovalDecisionInput } from '../../../shared/approvals';
import { useTransport } from '../../api/hooks';
import type { ConsoleTransport } from '../../api/transport';
import { applyApproval, approvalsQueryKey, mergeApprovals } from './approvalCache';

const read = async (transport: ConsoleTransport, client: QueryClient) => mergeApprovals(client.getQueryData(approvalsQueryKey), await transport.listApprovals(undefined));

/** Pending and recent approvals, kept current by `approval` events. */
export function useApprovals() {
  const transport = useTransport();
  const client = useQueryClient();
  return useQuery({
    queryKey: approvalsQueryKey,
    queryFn: () => read(transport, client),
    // Events keep it current; it is read again only when the event stream (re)opens.
    staleTime: Infinity,
    gcTime: Infinity,
  });
}

/** Reads GET /approvals again (the event stream opened: approval events may have been missed). */
export function refreshApprovals(transport: ConsoleTransport, client: QueryClient): void {
  void client.fetchQuery({ queryKey: approvalsQueryKey, queryFn: () => read(transport, client), staleTime: 0 }).catch(() => {
    // The view shows its query's error; the next reconnection reads again.
  });
}

/** Approve or deny one approval; its answer is shown at once, before its event arrives. */
export function useDecideApproval() {
  const transport = useTransport();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (decision: ApprovalDecisionInput) => transport.decideApproval(decision),
    onSuccess: (view) => applyApproval(client, view),
  });
}

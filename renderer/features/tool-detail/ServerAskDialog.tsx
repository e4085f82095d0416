/**
 * The operator's own call is waiting on a server's question (an elicitation, a sampling request):
 * a dialog asks it, the oldest first, while the call waits. An agent's call's questions wait in
 * Approvals instead (ApprovalsView). Closing the dialog without answering cancels the question,
 * as MCP Inspector's does: the server hears `cancel`, never an answer made up for the person.
 */
import { Dialog } from '../../ui/Dialog';
import { isAgentAsk, useAnswerAsk, useAsks } from '../approvals/useAsks';
import { AskAnswer } from './AskAnswer';

export function ServerAskDialog() {
  const asks = useAsks();
  const answer = useAnswerAsk();
  const ask = asks.data?.pending.find((candidate) => !isAgentAsk(candidate));
  const waiting = (asks.data?.pending.filter((candidate) => !isAgentAsk(candidate)).length ?? 0) - 1;
  return (
    <Dialog
      open={ask !== undefined}
      onClose={() => ask && !answer.isPending && answer.mutate({ id: ask.id, action: 'cancel' })}
      className="ask-dialog"
      title={ask ? `${ask.server} asks while your call waits` : ''}
    >
      {ask && (
        <>
          {/* A new key per question: what was typed for one never carries over to the next. */}
          <AskAnswer key={ask.id} ask={ask} />
          {waiting > 0 && <p className="muted">{waiting} more question{waiting === 1 ? '' : 's'} after this one.</p>}
        </>
      )}
    </Dialog>
  );
}

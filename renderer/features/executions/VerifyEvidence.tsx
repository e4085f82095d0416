/**
 * Asks the gateway whether the result shown here is the one the ledger recorded: it recomputes
 * the keyed digest of this exact JSON and compares it with the call's call_finished entry.
 * The console never sees the key; the gateway only answers match or mismatch.
 */
import { useMutation } from '@tanstack/react-query';
import { useTransport } from '../../api/hooks';
import { toErrorBody } from '../../api/errors';
import { useConsoleUi } from '../../state/uiStore';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Icon } from '../../ui/Icon';

export function VerifyEvidence({ requestId, result }: { requestId: string; result: unknown }) {
  const transport = useTransport();
  const showLedger = useConsoleUi((ui) => ui.showLedger);
  const check = useMutation({ mutationFn: () => transport.checkEvidence({ requestId, result }) });
  const verdict = check.data;
  return (
    <div className="evidence">
      <button type="button" className="button button--small" onClick={() => !check.isPending && check.mutate()} aria-disabled={check.isPending}>
        <Icon name={check.isPending ? 'spinner' : 'shield'} className={check.isPending ? 'spin' : ''} />
        Verify evidence
      </button>
      <span role="status" className="evidence__verdict">
        {verdict &&
          (verdict.matches ? (
            <span className="verdict verdict--ok" data-verdict="match">
              <Icon name="check" /> Matches ledger entry{' '}
              <button type="button" className="link-button" onClick={() => showLedger({ requestId })}>
                #{verdict.seq}
              </button>
            </span>
          ) : (
            <span className="verdict verdict--bad" data-verdict="mismatch">
              <Icon name="alert" /> {verdict.seq === null ? 'Not in the ledger' : `Does not match ledger entry #${verdict.seq}`}: {verdict.reason}
            </span>
          ))}
      </span>
      {check.error && (
        <ErrorNotice
          what="Could not check the evidence"
          error={toErrorBody(check.error)}
        />
      )}
    </div>
  );
}

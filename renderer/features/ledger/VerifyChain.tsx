/**
 * Asks the gateway to walk the whole hash chain and check its keyed checkpoint, and says whether it
 * holds or what is broken (an edited, deleted or unlinked entry, a truncated or rewritten tail, a
 * missing or tampered checkpoint) and where.
 */
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useReconnects } from '../gateway/reachability';
import { useTransport } from '../../api/hooks';
import { toErrorBody } from '../../api/errors';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Icon } from '../../ui/Icon';
import { LEDGER_PROBLEM_NAMES } from '../../../shared/ledger';

export function VerifyChain() {
  const transport = useTransport();
  const verify = useMutation({ mutationFn: () => transport.verifyLedger(undefined) });
  // A verdict read before the gateway went away may no longer hold (it may have restarted on other files).
  const reconnects = useReconnects();
  const { reset } = verify;
  const seen = useRef(reconnects);
  useEffect(() => {
    if (seen.current === reconnects) return;
    seen.current = reconnects;
    reset();
  }, [reconnects, reset]);
  const result = verify.data;
  return (
    <div className="verify-chain">
      <button type="button" className="button" onClick={() => !verify.isPending && verify.mutate()} aria-disabled={verify.isPending}>
        <Icon name={verify.isPending ? 'spinner' : 'shield'} className={verify.isPending ? 'spin' : ''} />
        {verify.isPending ? 'Verifying…' : 'Verify chain'}
      </button>
      <span role="status" className="verify-chain__result">
        {result &&
          !verify.isPending &&
          (result.ok ? (
            <span className="verdict verdict--ok" data-verdict="ok">
              <Icon name="check" /> Chain intact: {result.entries.toLocaleString()} entries, up to #{result.lastSeq}, sealed at #{result.sealedSeq}
              {result.chainOnlyThrough > 0 && (
                <span className="verify-chain__note" data-chain-only-through={result.chainOnlyThrough}>
                  {' '}
                  ({result.chainOnlyThrough === 1 ? 'entry #1 predates' : `entries #1 to #${result.chainOnlyThrough} predate`} keyed MACs: checked by the hash chain alone)
                </span>
              )}
            </span>
          ) : (
            <span className="verdict verdict--bad" data-verdict="broken" data-problem={result.problem}>
              <Icon name="alert" /> Chain broken, {LEDGER_PROBLEM_NAMES[result.problem]} at #{result.brokenAt}: {result.reason}
            </span>
          ))}
      </span>
      {verify.error && (
        <ErrorNotice
          what="Could not verify the chain"
          error={toErrorBody(verify.error)}
        />
      )}
    </div>
  );
}

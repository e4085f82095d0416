/** One ledger entry in full: every field, the whole hashes, the details as stored, and ways to see related entries. */
import type { ReactNode } from 'react';
import type { LedgerEntry } from '../../../shared/ledger';
import type { LedgerFilter } from '../../state/ledgerStore';
import { useConsoleUi } from '../../state/uiStore';
import { CopyButton } from '../../ui/CopyButton';
import { Dialog } from '../../ui/Dialog';
import { JsonBlock } from '../../ui/JsonBlock';
import { ProtocolLink } from '../providers/ProtocolLink';
import { principalTitle } from './entrySummary';

export function LedgerEntryDrawer({ entry, onClose }: { entry: LedgerEntry | null; onClose(): void }) {
  const setFilter = useConsoleUi((ui) => ui.setLedgerFilter);
  const show = (filter: LedgerFilter) => {
    setFilter(filter);
    onClose();
  };
  return (
    <Dialog open={entry !== null} onClose={onClose} variant="drawer" className="ledger-entry-drawer" title={entry ? `Ledger entry #${entry.seq}` : ''}>
      {entry && (
        <>
          <dl className="facts" aria-label="Entry">
            <Fact name="Seq">{entry.seq}</Fact>
            <Fact name="At">{entry.at}</Fact>
            <Fact name="Kind">
              <code>{entry.kind}</code>
              <button type="button" className="link-button" onClick={() => show({ kind: entry.kind })}>
                all of this kind
              </button>
            </Fact>
            <Fact name="Principal">
              {entry.principal ? (
                <>
                  <code title={principalTitle(entry.principal)}>{entry.principal}</code>
                  <button type="button" className="link-button" onClick={() => show({ principal: entry.principal ?? undefined })}>
                    all of this principal
                  </button>
                </>
              ) : (
                <span title={principalTitle(null)}>—</span>
              )}
            </Fact>
            <Fact name="Capability">
              {entry.capability ? (
                <>
                  <code>{entry.capability}</code>
                  <button type="button" className="link-button" onClick={() => show({ capability: entry.capability ?? undefined })}>
                    all of this capability
                  </button>
                </>
              ) : (
                '—'
              )}
            </Fact>
            <Fact name="requestId">
              {entry.requestId ? (
                <>
                  <code>{entry.requestId}</code>
                  <button type="button" className="link-button" onClick={() => show({ requestId: entry.requestId ?? undefined })}>
                    this call's entries
                  </button>
                  <ProtocolLink capability={entry.capability} requestId={entry.requestId} onOpen={onClose} />
                </>
              ) : (
                '—'
              )}
            </Fact>
            <Fact name="Task">
              {entry.taskId ? (
                <>
                  <code>{entry.taskId}</code>
                  <button type="button" className="link-button" onClick={() => show({ taskId: entry.taskId ?? undefined })}>
                    this task's entries
                  </button>
                </>
              ) : (
                '—'
              )}
            </Fact>
            <Fact name="Session">{entry.sessionId ?? '—'}</Fact>
            <Fact name="Previous hash">
              <code className="facts__hash">{entry.prevHash}</code>
            </Fact>
            <Fact name="Hash">
              <code className="facts__hash">{entry.hash}</code>
              <CopyButton text={entry.hash} label="Copy" />
            </Fact>
          </dl>
          <h3 className="section-heading">Details</h3>
          <p className="muted">Arguments and results appear only as keyed digests (HMAC-SHA256); nothing raw is stored.</p>
          <JsonBlock value={entry.details} label={`Entry ${entry.seq} details`} />
        </>
      )}
    </Dialog>
  );
}

function Fact({ name, children }: { name: string; children: ReactNode }) {
  return (
    <div className="facts__row">
      <dt>{name}</dt>
      <dd>{children}</dd>
    </div>
  );
}

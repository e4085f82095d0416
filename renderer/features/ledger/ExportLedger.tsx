/** Export as JSON lines: a download of every entry matching the Ledger view's filter (./exportLedger.ts). */
import { useEffect, useRef, useState } from 'react';
import type { ErrorBody } from '../../../shared/api';
import { useTransport } from '../../api/hooks';
import { toErrorBody } from '../../api/errors';
import { isEmptyFilter, type LedgerFilter } from '../../state/ledgerStore';
import { errorText } from '../../ui/errorText';
import { Icon } from '../../ui/Icon';
import { exportFileName, exportLedger, MAX_EXPORT } from './exportLedger';

type ExportState = { phase: 'idle' } | { phase: 'reading'; count: number } | { phase: 'done'; count: number; stoppedAfter: number | null } | { phase: 'failed'; error: ErrorBody };

export function ExportLedger({ filter }: { filter: LedgerFilter }) {
  const transport = useTransport();
  const [state, setState] = useState<ExportState>({ phase: 'idle' });
  const running = useRef<AbortController | null>(null);
  useEffect(() => () => running.current?.abort(), []);
  // Another filter: what was said about the last export no longer applies.
  const [shownFilter, setShownFilter] = useState(filter);
  if (shownFilter !== filter) {
    setShownFilter(filter);
    if (state.phase !== 'reading') setState({ phase: 'idle' });
  }

  const start = async () => {
    if (running.current) return;
    const controller = new AbortController();
    running.current = controller;
    setState({ phase: 'reading', count: 0 });
    try {
      const result = await exportLedger(transport, filter, { signal: controller.signal, onProgress: (count) => setState({ phase: 'reading', count }) });
      downloadText(exportFileName(filter), result.lines, 'application/x-ndjson');
      setState({ phase: 'done', count: result.count, stoppedAfter: result.stoppedAfter });
    } catch (error) {
      if (!controller.signal.aborted) setState({ phase: 'failed', error: toErrorBody(error) });
    } finally {
      running.current = null;
    }
  };

  const what = isEmptyFilter(filter) ? 'every ledger entry' : 'every entry matching these filters';
  return (
    <>
      <button
        type="button"
        className="button button--quiet"
        onClick={() => void start()}
        aria-disabled={state.phase === 'reading'}
        title={`Download ${what} as JSON lines (one entry a line, oldest first)`}
      >
        <Icon name={state.phase === 'reading' ? 'spinner' : 'download'} className={state.phase === 'reading' ? 'spin' : ''} />
        Export JSONL
      </button>
      <span className="ledger-export__status muted" role="status" data-export={state.phase}>
        {state.phase === 'reading' && `Reading ${state.count.toLocaleString()} entries…`}
        {state.phase === 'done' &&
          (state.stoppedAfter === null ? (
            `Exported ${state.count.toLocaleString()} ${state.count === 1 ? 'entry' : 'entries'}.`
          ) : (
            <>
              Exported the first {MAX_EXPORT.toLocaleString()} entries, up to #{state.stoppedAfter}; for the rest run{' '}
              <code>capstan ledger export --after {state.stoppedAfter}</code>.
            </>
          ))}
        {state.phase === 'failed' && `Export failed: ${errorText(state.error)}`}
      </span>
    </>
  );
}

/** Hands text to the browser (or Electron's save dialog) as a file download. */
function downloadText(name: string, parts: BlobPart[], type: string): void {
  const url = URL.createObjectURL(new Blob(parts, { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  // The download has its own reference once it starts; the URL is only needed for the click.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

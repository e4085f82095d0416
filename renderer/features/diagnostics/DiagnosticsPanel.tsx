/**
 * Every diagnostic the providers reported: files that could not be read as skills, definitions
 * the catalog refused. It follows the catalog live, so a broken SKILL.md shows up as it is saved.
 */
import type { Diagnostic } from '../../../shared/capability';
import { useConsoleUi } from '../../state/uiStore';
import { Dialog } from '../../ui/Dialog';
import { DiagnosticList } from './DiagnosticList';

export function DiagnosticsPanel({ diagnostics }: { diagnostics: readonly Diagnostic[] }) {
  const open = useConsoleUi((ui) => ui.panel === 'diagnostics');
  const openPanel = useConsoleUi((ui) => ui.openPanel);
  return (
    <Dialog open={open} onClose={() => openPanel(null)} variant="drawer" className="diagnostics-panel" title="Diagnostics">
      <p className="muted" aria-live="polite">
        {diagnostics.length === 0
          ? 'No diagnostics: every provider loaded cleanly.'
          : `${diagnostics.length} ${diagnostics.length === 1 ? 'problem' : 'problems'}. Each file or definition listed here is left out of the catalog (or, for a duplicate, the first one wins) until it is fixed; fixes are picked up as files are saved.`}
      </p>
      {diagnostics.length > 0 && <DiagnosticList diagnostics={diagnostics} />}
    </Dialog>
  );
}

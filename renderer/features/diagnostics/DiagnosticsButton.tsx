/** The header's way into the Diagnostics panel, with the live count on it. */
import { useConsoleUi } from '../../state/uiStore';
import { Icon } from '../../ui/Icon';

export function DiagnosticsButton({ count }: { count: number }) {
  const openPanel = useConsoleUi((ui) => ui.openPanel);
  return (
    <button
      type="button"
      className={`button ${count > 0 ? 'button--attention' : ''}`}
      title="Diagnostics"
      onClick={() => openPanel('diagnostics')}
    >
      <Icon name="alert" />
      <span className="button__label">Diagnostics</span>
      <span className="count-badge" data-count="diagnostics">
        {count}
      </span>
    </button>
  );
}

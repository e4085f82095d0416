/** The header's way into the Providers panel. */
import { useConsoleUi } from '../../state/uiStore';
import { Icon } from '../../ui/Icon';

export function ProvidersButton({ disabled }: { disabled: number }) {
  const openPanel = useConsoleUi((ui) => ui.openPanel);
  return (
    <button type="button" className="button" title="Providers" onClick={() => openPanel('providers')}>
      <Icon name="plug" />
      <span className="button__label">Providers</span>
      {disabled > 0 && <span className="count-badge count-badge--muted">{disabled} off</span>}
    </button>
  );
}

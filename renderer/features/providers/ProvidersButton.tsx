/** The header's way into the Providers panel. */
import { useConsoleUi } from '../../state/uiStore';
import { Icon } from '../../ui/Icon';

export function ProvidersButton({ disabled }: { disabled: number }) {
  const openPanel = useConsoleUi((ui) => ui.openPanel);
  return (
    <button type="button" className="button" onClick={() => openPanel('providers')}>
      <Icon name="plug" />
      Providers
      {disabled > 0 && <span className="count-badge count-badge--muted">{disabled} off</span>}
    </button>
  );
}

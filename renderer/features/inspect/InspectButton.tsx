/** Opens the inspect drawer for one capability. */
import { useConsoleUi } from '../../state/uiStore';
import { Icon } from '../../ui/Icon';

export function InspectButton({ id }: { id: string }) {
  const inspect = useConsoleUi((ui) => ui.inspect);
  return (
    <button type="button" className="button button--small" onClick={() => inspect(id)}>
      <Icon name="inspect" />
      Inspect
    </button>
  );
}

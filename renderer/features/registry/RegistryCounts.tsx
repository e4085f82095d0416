/** The header's figures, computed from whatever the gateway returned. */
import { registryCounts } from '../../../shared/policy';
import type { RegistryTool } from './useRegistry';

export function RegistryCounts({ entries, generation }: { entries: RegistryTool[]; generation: number | undefined }) {
  const counts = registryCounts(entries.map((entry) => entry.tool));
  const figures = [
    { key: 'total', label: 'Tools', value: counts.total },
    { key: 'direct', label: 'Directly executable', value: counts.direct },
    { key: 'confirm', label: 'Need confirmation', value: counts.needConfirm },
    { key: 'generation', label: 'Registry generation', value: generation ?? '—' },
  ];
  return (
    <dl className="counts" aria-label="Registry summary">
      {figures.map((figure) => (
        <div key={figure.key} className={`counts__item counts__item--${figure.key}`}>
          <dt>{figure.label}</dt>
          <dd data-count={figure.key}>{figure.value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The header's figures, computed from whatever the gateway returned. Tool figures follow the
 * foundation's rules (8 / 7 / 1 by default): usable tools only, so skills and revoked tools
 * are counted apart.
 */
import { registryCounts } from '../../../shared/policy';
import type { RegistryEntry } from './useRegistry';

export function RegistryCounts({ entries, generation }: { entries: readonly RegistryEntry[]; generation: number | undefined }) {
  const tools = entries.filter((entry) => entry.contract.kind === 'tool' && !entry.revoked).map((entry) => entry.contract);
  const counts = registryCounts(tools);
  const skills = entries.filter((entry) => entry.contract.kind === 'skill').length;
  const revoked = entries.filter((entry) => entry.revoked).length;
  // Tools of a server that is not connected still count above (they are in the catalog); this says how many cannot run now.
  const unavailable = entries.filter((entry) => entry.state === 'unavailable').length;
  const figures = [
    { key: 'total', label: 'Tools', value: counts.total },
    { key: 'direct', label: 'Directly executable', value: counts.direct },
    { key: 'confirm', label: 'Need confirmation', value: counts.needConfirm },
    { key: 'skills', label: 'Skills', value: skills },
    ...(revoked > 0 ? [{ key: 'revoked', label: 'Revoked', value: revoked }] : []),
    ...(unavailable > 0 ? [{ key: 'unavailable', label: 'Unavailable', value: unavailable }] : []),
    { key: 'generation', label: 'Catalog generation', value: generation ?? '—' },
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

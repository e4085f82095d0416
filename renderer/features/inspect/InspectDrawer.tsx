/**
 * Everything the gateway knows about one capability: the validated contract, its schema and
 * policy flags, the hashes and generations a reference is checked against, its provider, its
 * diagnostics, and the Revoke / Restore action.
 */
import type { ReactNode } from 'react';
import type { Diagnostic, ProviderInfo } from '../../../shared/capability';
import { useConsoleUi } from '../../state/uiStore';
import { ConfirmationBadge, DeprecatedBadge, MutatingBadge, RiskBadge } from '../../ui/badges';
import { CopyButton } from '../../ui/CopyButton';
import { Dialog } from '../../ui/Dialog';
import { JsonBlock } from '../../ui/JsonBlock';
import { DiagnosticList } from '../diagnostics/DiagnosticList';
import { unavailabilityText } from '../registry/availability';
import { StateBadge } from '../registry/StateBadge';
import { ToolPolicy } from '../tool-detail/ToolPolicy';
import type { RegistryEntry } from '../registry/useRegistry';
import { capabilityDiagnostics } from './capabilityDiagnostics';
import { RevokeControl } from './RevokeControl';

interface InspectDrawerProps {
  byId: ReadonlyMap<string, RegistryEntry>;
  catalogGeneration: number | undefined;
  providers: readonly ProviderInfo[];
  diagnostics: readonly Diagnostic[];
}

export function InspectDrawer({ byId, catalogGeneration, providers, diagnostics }: InspectDrawerProps) {
  const id = useConsoleUi((ui) => ui.inspectingId);
  const inspect = useConsoleUi((ui) => ui.inspect);
  const entry = id === null ? undefined : byId.get(id);
  return (
    <Dialog
      open={id !== null}
      onClose={() => inspect(null)}
      variant="drawer"
      className="inspect-drawer"
      title={
        <>
          Inspect <code>{entry?.contract.name ?? id}</code>
        </>
      }
    >
      {entry ? (
        <Inspection
          key={entry.id}
          entry={entry}
          catalogGeneration={catalogGeneration}
          provider={providers.find((info) => info.name === entry.contract.provider)}
          diagnostics={capabilityDiagnostics(diagnostics, entry.contract)}
        />
      ) : (
        <p role="status">
          <code>{id}</code> is no longer in the catalog: its provider was disabled or no longer offers it.
        </p>
      )}
    </Dialog>
  );
}

interface InspectionProps {
  entry: RegistryEntry;
  catalogGeneration: number | undefined;
  provider: ProviderInfo | undefined;
  diagnostics: Diagnostic[];
}

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

function Inspection({ entry, catalogGeneration, provider, diagnostics }: InspectionProps) {
  const { contract } = entry;
  return (
    <>
      <div className="tool-detail__badges">
        <StateBadge state={entry.state} />
        {contract.kind === 'tool' && (
          <>
            <RiskBadge risk={contract.riskLevel} />
            <ConfirmationBadge needConfirm={contract.needConfirm} />
            {contract.mutating && <MutatingBadge />}
            {contract.deprecated && <DeprecatedBadge />}
          </>
        )}
      </div>
      <p>{contract.description}</p>
      {contract.kind === 'tool' && contract.runnable === false && (
        <p className="notice notice--not-runnable" role="status">
          Not runnable here: {contract.notRunnableReason}. Calls are refused with <code>TOOL_NOT_RUNNABLE</code>.
        </p>
      )}
      {entry.unavailable && (
        <p className="notice notice--unavailable" role="status">
          {unavailabilityText(entry.unavailable)} Calls are refused with <code>PROVIDER_UNAVAILABLE</code> until it is ready again.
        </p>
      )}

      <dl className="facts" aria-label="Contract facts">
        <Fact name="Id" testId="id">
          <code>{contract.id}</code>
        </Fact>
        <Fact name="Kind">{contract.kind}</Fact>
        <Fact name="Provider">
          <code>{contract.provider}</code>
          {provider && <span className="muted"> ({provider.kind}{provider.status ? `, ${provider.status.state}` : ''})</span>}
        </Fact>
        <Fact name="Risk">{contract.riskLevel}</Fact>
        <Fact name="needConfirm">{yesNo(contract.needConfirm)}</Fact>
        <Fact name="mutating">{yesNo(contract.mutating)}</Fact>
        <Fact name="modelDiscoverable">{yesNo(contract.modelDiscoverable)}</Fact>
        {contract.kind === 'tool' && contract.deprecated !== undefined && <Fact name="Deprecated">{yesNo(contract.deprecated)}</Fact>}
        <Fact name="Tags">{contract.tags.length > 0 ? contract.tags.join(', ') : <span className="muted">none</span>}</Fact>
        <Fact name="contractHash" testId="contract-hash">
          <code className="facts__hash">{entry.contractHash}</code>
          <CopyButton text={entry.contractHash} label="Copy" />
        </Fact>
        <Fact name="Catalog generation" testId="catalog-generation">
          {catalogGeneration ?? '—'}
        </Fact>
        <Fact name="Binding generation" testId="binding-generation">
          {entry.bindingGeneration}
        </Fact>
        {contract.kind === 'skill' && (
          <>
            <Fact name="Path" testId="path">
              <code className="facts__path">{contract.path}</code>
            </Fact>
            <Fact name="Argument hint">{contract.argumentHint ?? <span className="muted">none</span>}</Fact>
            <Fact name="Allowed tools">
              {contract.allowedTools.length > 0 ? contract.allowedTools.join(', ') : <span className="muted">none declared</span>}
            </Fact>
            <Fact name="Manifest hash" testId="manifest-hash">
              <code className="facts__hash">{contract.manifestHash}</code>
            </Fact>
            <Fact name="Body hash" testId="body-hash">
              <code className="facts__hash">{contract.bodyHash}</code>
            </Fact>
          </>
        )}
        <Fact name="Revoked">{yesNo(entry.revoked)}</Fact>
      </dl>

      <h3 className="section-heading">Diagnostics</h3>
      {diagnostics.length > 0 ? (
        <DiagnosticList diagnostics={diagnostics} />
      ) : (
        <p className="muted">No diagnostics for this capability.</p>
      )}

      {contract.kind === 'tool' && <ToolPolicy tool={contract} />}

      {contract.kind === 'tool' && (
        <details className="contract" open>
          <summary>Input schema</summary>
          <JsonBlock value={contract.inputSchema} label={`${contract.name} input schema`} />
        </details>
      )}
      {contract.kind === 'tool' && contract.outputSchema && (
        <details className="contract" open>
          <summary>Output schema</summary>
          <JsonBlock value={contract.outputSchema} label={`${contract.name} output schema`} />
        </details>
      )}
      <details className="contract">
        <summary>Validated contract (JSON)</summary>
        <JsonBlock value={contract} label={`${contract.name} contract`} />
      </details>

      <h3 className="section-heading">Availability</h3>
      <RevokeControl id={entry.id} revoked={entry.revoked} />
    </>
  );
}

function Fact({ name, testId, children }: { name: string; testId?: string; children: ReactNode }) {
  return (
    <div className="facts__row">
      <dt>{name}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}

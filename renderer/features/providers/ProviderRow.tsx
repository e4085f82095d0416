/**
 * One provider in the Providers panel: name, kind and status, the switch, its figures, its
 * health (MCP servers) and, for a configured server, Edit and Remove.
 */
import { Icon } from '../../ui/Icon';
import { OAuthStatus } from './OAuthStatus';
import type { ProviderRowModel } from './providerRows';
import { ProviderStatusView, StatusBadge } from './ProviderStatusView';
import { RemoveServer } from './RemoveServer';

interface ProviderRowProps {
  row: ProviderRowModel;
  /** The switch's position while a change is on its way, else the provider's own. */
  switching: boolean | undefined;
  onToggle(enabled: boolean): void;
  onEdit(): void;
  /** Opens the server's policy: its tools' confirmation and risk floor, per-tool overrides. */
  onPolicy(): void;
  /** Opens the server's log (notifications/message), live. */
  onLog(): void;
  /** Opens the server's protocol messages. */
  onProtocol(): void;
}

export function ProviderRow({ row, switching, onToggle, onEdit, onPolicy, onLog, onProtocol }: ProviderRowProps) {
  const { name, kind, enabled, status, info, server } = row;
  const tools = info?.tools ?? server?.tools ?? 0;
  return (
    <li
      className={`provider ${enabled ? '' : 'provider--disabled'} ${status ? `provider--${status.state}` : ''}`}
      aria-label={name}
      data-provider={name}
      tabIndex={-1}
    >
      <div className="provider__head">
        <h3 className="provider__name">
          <code>{name}</code>
        </h3>
        <span className="badge badge--plain">{kind}</span>
        {server && <span className="badge badge--plain">{server.transport === 'stdio' ? 'stdio' : 'Streamable HTTP'}</span>}
        {status && <StatusBadge status={status} />}
        <label className="switch">
          <input
            type="checkbox"
            role="switch"
            checked={switching ?? enabled}
            aria-busy={switching !== undefined}
            onChange={(event) => onToggle(event.target.checked)}
          />
          <span className="switch__track" aria-hidden="true" />
          {/* The switch names its provider: "Enabled" alone does not say what it turns on. */}
          <span className="switch__label">
            <span className="visually-hidden">Provider {name} </span>Enabled
          </span>
        </label>
      </div>
      <dl className="provider__figures">
        {info && <Figure name="Binding generation" value={info.bindingGeneration} testId="binding-generation" />}
        <Figure name="Tools" value={tools} testId="tools" />
        {info && <Figure name="Skills" value={info.skills} testId="skills" />}
        {/* An MCP server's resources (templates included) and prompts, once it declares some. */}
        {info?.resources !== undefined && <Figure name="Resources" value={info.resources} testId="resources" />}
        {info?.prompts !== undefined && <Figure name="Prompts" value={info.prompts} testId="prompts" />}
        {info && <Figure name="Diagnostics" value={info.diagnostics} testId="diagnostics" />}
      </dl>
      {status && status.state !== 'disabled' && <ProviderStatusView name={name} status={status} />}
      {server?.transport === 'http' && enabled && <OAuthStatus name={name} />}
      {!enabled && tools + (info?.skills ?? 0) + (info?.resources ?? 0) + (info?.prompts ?? 0) > 0 && <p className="muted">Its capabilities are out of the catalog while it is disabled.</p>}
      {server && (
        <div className="provider__actions" role="group" aria-label={`${name} actions`}>
          <button type="button" className="button button--small" onClick={onEdit}>
            <Icon name="pencil" />
            Edit…
          </button>
          <button type="button" className="button button--small" onClick={onPolicy}>
            <Icon name="lock" />
            Policy…
          </button>
          <button type="button" className="button button--small" onClick={onLog}>
            <Icon name="book" />
            Log…
          </button>
          <button type="button" className="button button--small" onClick={onProtocol}>
            <Icon name="list" />
            Protocol…
          </button>
          <RemoveServer name={name} tools={tools} />
        </div>
      )}
    </li>
  );
}

function Figure({ name, value, testId }: { name: string; value: number; testId: string }) {
  return (
    <div>
      <dt>{name}</dt>
      <dd data-testid={testId}>{value}</dd>
    </div>
  );
}

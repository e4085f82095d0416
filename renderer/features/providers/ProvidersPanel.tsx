/**
 * The providers behind the catalog: each one's kind, status, binding generation and counts, and
 * a switch that enables or disables it at once. A disabled provider's capabilities leave the
 * catalog, every task's view of it and model discovery; its figures stay here so the operator
 * can judge what re-enabling brings back. MCP servers are added, edited and removed here too
 * (config.json's mcpServers, saved by the gateway), in a form that takes the drawer's place.
 */
import { useEffect, useRef, useState } from 'react';
import type { ProviderInfo } from '../../../shared/capability';
import { useSetProviderEnabled } from '../../api/hooks';
import { toErrorBody } from '../../api/errors';
import { useConsoleUi } from '../../state/uiStore';
import { Dialog } from '../../ui/Dialog';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { errorText } from '../../ui/errorText';
import { Icon } from '../../ui/Icon';
import { McpServerForm } from './form/McpServerForm';
import { ProtocolPanel } from './ProtocolPanel';
import { useProtocolFocus } from './protocolLink';
import { ProviderRow } from './ProviderRow';
import { ServerLogPanel } from './ServerLogPanel';
import { ServerPolicyForm } from './ServerPolicyForm';
import { providerRows } from './providerRows';
import { useMcpServers, useSaveMcpServer } from './useMcpServers';

/**
 * What the drawer shows: the list, the form for a new server (name null) or a configured one, a
 * server's policy, its log, or its protocol messages (on one call when `requestId` is given).
 */
type Editing = { name: string | null; policy?: boolean; log?: boolean; protocol?: { requestId: string | null } } | null;

export function ProvidersPanel({ providers }: { providers: readonly ProviderInfo[] }) {
  const open = useConsoleUi((ui) => ui.panel === 'providers');
  const openPanel = useConsoleUi((ui) => ui.openPanel);
  const servers = useMcpServers(open);
  const [editing, setEditing] = useState<Editing>(null);
  // "Protocol messages" from a call elsewhere on the page opens that server's view here.
  // Closed from elsewhere (the protocol view's Ledger entries): it opens on the list next time.
  useEffect(
    () =>
      useConsoleUi.subscribe((ui, previous) => {
        if (previous.panel === 'providers' && ui.panel !== 'providers') setEditing(null);
      }),
    [],
  );
  useEffect(
    () =>
      useProtocolFocus.subscribe((state) => {
        const taken = state.focus ? state.take() : null;
        if (taken) setEditing({ name: taken.server, protocol: { requestId: taken.requestId } });
      }),
    [],
  );
  // After the form, the keyboard goes back to the server it was about (or to Add).
  const [returnTo, setReturnTo] = useState<string | null>(null);
  const close = () => {
    setEditing(null);
    openPanel(null);
  };
  const server = editing?.name ? servers.data?.servers.find((view) => view.name === editing.name) : undefined;
  const title = editing
    ? editing.name
      ? `${editing.policy ? 'Policy of' : editing.log ? 'Log of' : editing.protocol ? 'Protocol messages of' : 'Edit'} ${editing.name}`
      : 'Add an MCP server'
    : 'Providers';
  const back = (name: string) => {
    setReturnTo(name);
    setEditing(null);
  };

  return (
    // Escape in the form goes back to the list rather than dropping the whole drawer, and what was typed with it.
    <Dialog open={open} onClose={editing ? () => setEditing(null) : close} variant="drawer" className="providers-panel" title={title}>
      {editing?.name && !server ? (
        // The list is still on its way, or the server was removed meanwhile (by another client).
        <p role="status">
          {servers.isPending ? 'Reading the server from the gateway…' : <><code>{editing.name}</code> is no longer configured.</>}{' '}
          <button type="button" className="link-button" onClick={() => setEditing(null)}>
            Back to the providers
          </button>
        </p>
      ) : editing?.log && server ? (
        <ServerLogPanel key={server.name} name={server.name} onBack={() => back(server.name)} />
      ) : editing?.protocol && server ? (
        <ProtocolPanel key={`${server.name} ${editing.protocol.requestId ?? ''}`} name={server.name} requestId={editing.protocol.requestId} onBack={() => back(server.name)} />
      ) : editing?.policy && server ? (
        <ServerPolicyForm
          key={server.name}
          server={server}
          onDone={() => {
            setReturnTo(server.name);
            setEditing(null);
          }}
        />
      ) : editing ? (
        <McpServerForm
          key={editing.name ?? ''}
          server={server}
          takenNames={[...providers.map((info) => info.name), ...(servers.data?.servers.map((view) => view.name) ?? [])]}
          onDone={(saved) => {
            setReturnTo(saved ?? editing.name ?? '');
            setEditing(null);
          }}
        />
      ) : (
        <ProviderList
          providers={providers}
          servers={servers}
          returnTo={returnTo}
          onEdit={(name) => setEditing({ name })}
          onPolicy={(name) => setEditing({ name, policy: true })}
          onLog={(name) => setEditing({ name, log: true })}
          onProtocol={(name) => setEditing({ name, protocol: { requestId: null } })}
        />
      )}
    </Dialog>
  );
}

interface ProviderListProps {
  providers: readonly ProviderInfo[];
  servers: ReturnType<typeof useMcpServers>;
  /** A provider to focus once the list is back ('' for the Add button). */
  returnTo: string | null;
  onEdit(name: string | null): void;
  onPolicy(name: string): void;
  onLog(name: string): void;
  onProtocol(name: string): void;
}

function ProviderList({ providers, servers, returnTo, onEdit, onPolicy, onLog, onProtocol }: ProviderListProps) {
  const setEnabled = useSetProviderEnabled();
  const saveServer = useSaveMcpServer();
  const list = useRef<HTMLDivElement>(null);
  // The switch moves as soon as it is pressed; the gateway's answer (or failure) settles it.
  const [switching, setSwitching] = useState<ReadonlyMap<string, boolean>>(new Map());
  const rows = providerRows(providers, servers.data?.servers);

  useEffect(() => {
    if (returnTo === null) return;
    const target = returnTo === '' ? list.current?.querySelector<HTMLElement>('[data-add-server]') : list.current?.querySelector<HTMLElement>(`[data-provider="${CSS.escape(returnTo)}"]`);
    target?.focus();
  }, [returnTo]);

  const toggle = (name: string, enabled: boolean) => {
    setSwitching((current) => new Map(current).set(name, enabled));
    const settle = {
      onSettled: () =>
        setSwitching((current) => {
          const next = new Map(current);
          next.delete(name);
          return next;
        }),
    };
    const row = rows.find((candidate) => candidate.name === name);
    // A configured server the catalog does not list yet has no switch of its own: its entry says whether it connects.
    if (!row?.info && row?.server) saveServer.mutate({ name, entry: { ...row.server.entry, enabled } }, settle);
    else setEnabled.mutate({ provider: name, enabled }, settle);
  };

  const switchError = setEnabled.error ?? saveServer.error;
  return (
    <div ref={list}>
      <div className="providers-panel__intro">
        <p className="muted">Switching a provider takes effect at once, in this console and in every task.</p>
        <button type="button" className="button button--primary" data-add-server onClick={() => onEdit(null)}>
          <Icon name="plus" />
          Add MCP server…
        </button>
      </div>
      {servers.error && <ErrorNotice what="Could not read the MCP servers" error={toErrorBody(servers.error)} />}
      <ul className="provider-list">
        {rows.map((row) => (
          <ProviderRow
            key={row.name}
            row={row}
            switching={switching.get(row.name)}
            onToggle={(enabled) => toggle(row.name, enabled)}
            onEdit={() => onEdit(row.name)}
            onPolicy={() => onPolicy(row.name)}
            onLog={() => onLog(row.name)}
            onProtocol={() => onProtocol(row.name)}
          />
        ))}
      </ul>
      {switchError && (
        <p className="notice notice--error" role="alert">
          Could not switch the provider: {errorText(toErrorBody(switchError))}
        </p>
      )}
    </div>
  );
}

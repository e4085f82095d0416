/**
 * Removes an MCP server from config.json. Its tools leave the catalog at once and its process is
 * ended, so the operator says it twice: the first button only asks, with Cancel focused.
 */
import { useState } from 'react';
import { toErrorBody } from '../../api/errors';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Icon } from '../../ui/Icon';
import { useRemoveMcpServer } from './useMcpServers';

export function RemoveServer({ name, tools }: { name: string; tools: number }) {
  const [confirming, setConfirming] = useState(false);
  const remove = useRemoveMcpServer();
  const error = remove.error && toErrorBody(remove.error);
  if (!confirming) {
    return (
      <button type="button" className="button button--small button--danger" onClick={() => setConfirming(true)}>
        <Icon name="trash" />
        Remove…
      </button>
    );
  }
  return (
    <div className="notice notice--error provider__confirm" role="group" aria-label={`Confirm: remove ${name}`}>
      <Icon name="trash" />
      <div>
        <p>
          Remove <code>{name}</code> from config.json? Its process is stopped and its {tools} tool{tools === 1 ? '' : 's'} leave the catalog,
          in this console and in every task.
        </p>
        <div className="revoke__actions">
          <button type="button" className="button" onClick={() => setConfirming(false)} autoFocus>
            Cancel
          </button>
          <button type="button" className="button button--danger-solid" disabled={remove.isPending} onClick={() => remove.mutate(name)}>
            {remove.isPending ? 'Removing…' : `Remove ${name}`}
          </button>
        </div>
        {error && <ErrorNotice what="Could not remove the server" error={error} />}
      </div>
    </div>
  );
}

/**
 * Settings → Agents: the tokens agents (MCP clients, scripts) use instead of the operator's.
 * A new token is shown once, here, with a copy button: the gateway keeps only its SHA-256, so
 * closing the panel loses it for good. Revoking takes effect on the agent's next request.
 */
import { useId, useState, type FormEvent } from 'react';
import type { CreatedAgent } from '../../../shared/agents';
import { AGENT_NAME_MAX, AgentName } from '../../../shared/principal';
import { toErrorBody } from '../../api/errors';
import { CopyButton } from '../../ui/CopyButton';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { dateTime } from '../../ui/format';
import { Icon } from '../../ui/Icon';
import { Field } from '../providers/form/Field';
import { useAgents, useCreateAgent, useRevokeAgent } from './useAgents';

export function AgentsPanel({ onDone }: { onDone(): void }) {
  const [created, setCreated] = useState<CreatedAgent | null>(null);
  return (
    <div className="settings agents">
      <p className="muted">
        An agent connects with a token of its own. It can discover and call tools in its own sessions; a call that needs confirmation waits for
        you in Approvals. It cannot confirm, change settings, providers or grants, read the ledger, or manage tokens. The ledger names each
        entry&apos;s principal: <code>operator</code> or <code>agent:&lt;name&gt;</code>.
      </p>
      {created ? <NewToken created={created} onDone={() => setCreated(null)} /> : <NewAgentForm onCreated={setCreated} />}
      <AgentList />
      <div className="dialog__footer">
        <button type="button" className="button" onClick={onDone}>
          Close
        </button>
      </div>
    </div>
  );
}

/** What is wrong with a name, checked in the page as the gateway checks it. */
function nameProblem(name: string): string | undefined {
  if (name === '') return 'Give the agent a name.';
  if (!AgentName.safeParse(name).success) return `Use 1–${AGENT_NAME_MAX} letters, digits, “_”, “.” or “-”, without spaces.`;
  return undefined;
}

function NewAgentForm({ onCreated }: { onCreated(created: CreatedAgent): void }) {
  const [name, setName] = useState('');
  const [shownError, setShownError] = useState<string>();
  const create = useCreateAgent();
  const id = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problem = nameProblem(name.trim());
    setShownError(problem);
    if (problem) return document.getElementById(id)?.focus();
    create.mutate(name.trim(), { onSuccess: onCreated });
  };
  const failure = create.error ? toErrorBody(create.error) : undefined;
  return (
    <form className="agents__create" onSubmit={submit} aria-label="New agent token" noValidate>
      <Field id={id} label="Agent name" hint="How the ledger and Approvals will name it, e.g. claude-desktop." error={shownError}>
        {(control) => (
          <input
            {...control}
            className="input"
            value={name}
            onChange={(event) => {
              setName(event.target.value);
              if (shownError) setShownError(nameProblem(event.target.value.trim()));
            }}
            spellCheck={false}
            autoComplete="off"
          />
        )}
      </Field>
      <div>
        <button type="submit" className="button button--primary" disabled={create.isPending}>
          <Icon name="plus" />
          {create.isPending ? 'Creating…' : 'Create token'}
        </button>
      </div>
      {failure && <ErrorNotice what="Could not create the token" error={failure} />}
    </form>
  );
}

/** The token, this once. */
function NewToken({ created, onDone }: { created: CreatedAgent; onDone(): void }) {
  const headingId = useId();
  return (
    <section className="notice notice--locked agents__token" aria-labelledby={headingId}>
      <Icon name="alert" />
      <div>
        <h3 id={headingId} className="section-heading">
          Token for <code>{created.agent.principal}</code>
        </h3>
        <p>Copy it now: it is shown only this once. Capstan keeps only its SHA-256; if it is lost, revoke it and create another.</p>
        <div className="agents__token-row">
          <code className="agents__token-value" data-testid="agent-token">
            {created.token}
          </code>
          <CopyButton text={created.token} label="Copy token" />
        </div>
        <button type="button" className="button" onClick={onDone} autoFocus>
          Done
        </button>
      </div>
    </section>
  );
}

function AgentList() {
  const agents = useAgents();
  if (agents.error) return <ErrorNotice what="Could not read the agents" error={toErrorBody(agents.error)} />;
  const list = agents.data?.agents;
  if (!list) return <p className="muted">Reading the agents…</p>;
  if (list.length === 0) return <p className="muted">No agent has a token yet. (`capstan token create --name NAME` makes one too.)</p>;
  return (
    <table className="agents__list" aria-label="Agents with a token">
      <thead>
        <tr>
          <th scope="col">Agent</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {list.map((agent) => (
          <tr key={agent.name} data-agent={agent.name}>
            <th scope="row">
              <code>{agent.name}</code>
            </th>
            <td title={agent.createdAt}>{dateTime(agent.createdAt)}</td>
            <td title={agent.lastUsedAt ?? undefined}>{agent.lastUsedAt ? dateTime(agent.lastUsedAt) : 'never'}</td>
            <td>
              <RevokeAgent name={agent.name} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Revoking cuts the agent off at once, so the operator says it twice, with Keep focused. */
function RevokeAgent({ name }: { name: string }) {
  const [confirming, setConfirming] = useState(false);
  const revoke = useRevokeAgent();
  if (!confirming) {
    return (
      <button type="button" className="button button--small button--danger" onClick={() => setConfirming(true)}>
        <Icon name="trash" />
        Revoke…
      </button>
    );
  }
  const failure = revoke.error ? toErrorBody(revoke.error) : undefined;
  return (
    <div className="agents__confirm" role="group" aria-label={`Confirm: revoke ${name}`}>
      <span>Its next request is refused.</span>
      <button type="button" className="button button--small" onClick={() => setConfirming(false)} autoFocus>
        Keep
      </button>
      <button type="button" className="button button--small button--danger-solid" disabled={revoke.isPending} onClick={() => revoke.mutate(name)}>
        {revoke.isPending ? 'Revoking…' : `Revoke ${name}`}
      </button>
      {failure && <ErrorNotice what="Could not revoke the token" error={failure} />}
    </div>
  );
}

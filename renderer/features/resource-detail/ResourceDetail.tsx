/**
 * The selected MCP resource or resource template: what its server says of it, and reading it.
 * A resource is read as it is (POST /resources/read); a template's variables are filled in first,
 * with the server's completions, and the gateway expands them into the URI. Every read runs in
 * the operator's task and is on record (digests only); what it returned lives only here.
 * A resource can be followed: the gateway subscribes on its server, and each update it announces
 * shows here as it arrives, for the operator to read the new version.
 */
import { useMutation } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { ResourceContract, ResourceTemplateContract } from '../../../shared/capability';
import type { ReadResourceOutput } from '../../../shared/resources';
import { toErrorBody } from '../../api/errors';
import { useTransport } from '../../api/hooks';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { clockTime, formatDuration } from '../../ui/format';
import { Icon } from '../../ui/Icon';
import { CapabilityHeader } from '../registry/CapabilityHeader';
import type { RegistryEntry } from '../registry/useRegistry';
import { CompletedField } from './CompletedField';
import { byteSize } from './contentView';
import { DeclaredFacts, DeclaredKindBadge, DeclaredNotice } from './DeclaredParts';
import { ResourceContents } from './ResourceContents';
import { useResourceUpdates } from './resourceUpdates';
import './resourceDetail.css';

export type ResourceEntry = RegistryEntry & { contract: ResourceContract | ResourceTemplateContract };

export function ResourceDetail({ entry }: { entry: ResourceEntry }) {
  const { contract } = entry;
  const headingId = useId();
  const transport = useTransport();
  const read = useMutation({ mutationFn: (variables?: Record<string, string>) => transport.readResource(variables ? { id: entry.id, variables } : { id: entry.id }) });
  const usable = entry.state === 'readable';
  return (
    <section className="tool-detail resource-detail" aria-labelledby={headingId} data-state={entry.state} data-kind={contract.kind}>
      <CapabilityHeader entry={entry} headingId={headingId} badges={<DeclaredKindBadge kind={contract.kind} />} />
      <p className="tool-detail__description">{contract.description}</p>
      <DeclaredNotice entry={entry} />
      <DeclaredFacts contract={contract}>
        <div className="facts__row">
          <dt>{contract.kind === 'resource' ? 'URI' : 'URI template'}</dt>
          <dd>
            <code className="facts__path">{contract.kind === 'resource' ? contract.uri : contract.uriTemplate}</code>
          </dd>
        </div>
        <div className="facts__row">
          <dt>MIME type</dt>
          <dd>{contract.mimeType ?? <span className="muted">not declared</span>}</dd>
        </div>
        {contract.kind === 'resource' && contract.size !== null && (
          <div className="facts__row">
            <dt>Size</dt>
            <dd>{byteSize(contract.size)} (as the server declared)</dd>
          </div>
        )}
      </DeclaredFacts>
      {contract.kind === 'resource' ? (
        <div className="tool-detail__actions">
          <button type="button" className="button button--primary" disabled={!usable || read.isPending} onClick={() => read.mutate(undefined)}>
            <Icon name={read.isPending ? 'spinner' : 'eye'} className={read.isPending ? 'spin' : ''} />
            {read.data ? 'Read again' : 'Read'}
          </button>
          <FollowUpdates entry={entry as RegistryEntry & { contract: ResourceContract }} disabled={!usable} onRead={() => read.mutate(undefined)} />
        </div>
      ) : (
        <TemplateForm template={contract} disabled={!usable || read.isPending} reading={read.isPending} onRead={(variables) => read.mutate(variables)} />
      )}
      <ReadOutcome read={read.data} error={read.error} />
    </section>
  );
}

function ReadOutcome({ read, error }: { read: ReadResourceOutput | undefined; error: unknown }) {
  const headingId = useId();
  if (error) return <ErrorNotice what="The read failed" error={toErrorBody(error)} />;
  if (!read) return null;
  return (
    <section className="resource-read" aria-labelledby={headingId} data-request-id={read.requestId}>
      <h3 className="section-heading" id={headingId}>
        Contents
      </h3>
      <p className="muted resource-read__facts" role="status">
        Read {read.uri} in {formatDuration(read.durationMs)}, {byteSize(read.bytes)}; recorded as <code>{read.requestId}</code> in {read.taskId}.
      </p>
      <ResourceContents contents={read.contents} label={`Contents of ${read.uri}`} />
    </section>
  );
}

function TemplateForm({ template, disabled, reading, onRead }: { template: ResourceTemplateContract; disabled: boolean; reading: boolean; onRead(variables: Record<string, string>): void }) {
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(template.variables.map((name) => [name, ''])));
  const complete = template.variables.every((name) => values[name] !== '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (complete) onRead(values);
  };
  return (
    <form className="declared-form" onSubmit={submit} aria-label={`Variables of ${template.title}`}>
      {template.variables.length === 0 && <p className="muted">This template has no variables.</p>}
      {template.variables.map((name) => (
        <CompletedField
          key={name}
          capability={template.id}
          name={name}
          label={name}
          required
          value={values[name] ?? ''}
          context={values}
          onChange={(value) => setValues((before) => ({ ...before, [name]: value }))}
        />
      ))}
      <div className="tool-detail__actions">
        <button type="submit" className="button button--primary" disabled={disabled || !complete}>
          <Icon name={reading ? 'spinner' : 'eye'} className={reading ? 'spin' : ''} />
          Read
        </button>
        {!complete && <span className="muted">Fill in every variable to read the resource it names.</span>}
      </div>
    </form>
  );
}

/**
 * Following a resource while its detail is open: the gateway subscribes on the server
 * (resources/subscribe) and stops when the operator stops or leaves the detail.
 */
function FollowUpdates({ entry, disabled, onRead }: { entry: RegistryEntry & { contract: ResourceContract }; disabled: boolean; onRead(): void }) {
  const transport = useTransport();
  const [following, setFollowing] = useState(false);
  // What the gateway holds for this view, for the cleanup (which sees no later state).
  const held = useRef(false);
  const updates = useResourceUpdates((state) => state.updates[entry.id]);
  const forget = useResourceUpdates((state) => state.forget);
  const follow = useMutation({
    mutationFn: (subscribed: boolean) => transport.setResourceSubscribed({ id: entry.id, subscribed }),
    // This view's own follow (the gateway counts each window's): another window may still follow it.
    onSuccess: (_view, subscribed) => {
      held.current = subscribed;
      setFollowing(subscribed);
    },
  });
  // Leaving the detail stops this view's follow: nobody would see its updates here.
  useEffect(
    () => () => {
      if (held.current) void transport.setResourceSubscribed({ id: entry.id, subscribed: false }).catch(() => undefined);
      forget(entry.id);
    },
    [transport, entry.id, forget],
  );
  return (
    <>
      <button type="button" className="button" aria-pressed={following} disabled={disabled || follow.isPending} onClick={() => follow.mutate(!following)}>
        <Icon name={following ? 'pause' : 'refresh'} />
        {following ? 'Stop following' : 'Follow updates'}
      </button>
      <p className="resource-updates" role="status" aria-live="polite">
        {following && !updates && <span className="muted">Following: its server will say when it changes.</span>}
        {updates && (
          <>
            Updated {updates.count === 1 ? 'once' : `${updates.count} times`}, last at {clockTime(updates.lastAt)}.{' '}
            <button type="button" className="link-button" onClick={onRead}>
              Read the new version
            </button>
          </>
        )}
      </p>
      {follow.error && <ErrorNotice what="Could not follow it" error={toErrorBody(follow.error)} />}
    </>
  );
}

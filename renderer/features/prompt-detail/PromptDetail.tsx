/**
 * The selected MCP prompt: its arguments as a form (required ones marked, each with the server's
 * completions), and the messages it returns (POST /prompts/get). Every get runs in the
 * operator's task and is on record (digests only); the messages live only here.
 */
import { useMutation } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import type { PromptContract } from '../../../shared/capability';
import type { GetPromptOutput } from '../../../shared/resources';
import { toErrorBody } from '../../api/errors';
import { useTransport } from '../../api/hooks';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { formatDuration } from '../../ui/format';
import { Icon } from '../../ui/Icon';
import { CapabilityHeader } from '../registry/CapabilityHeader';
import type { RegistryEntry } from '../registry/useRegistry';
import { CompletedField } from '../resource-detail/CompletedField';
import { DeclaredFacts, DeclaredKindBadge, DeclaredNotice } from '../resource-detail/DeclaredParts';
import { PromptMessages } from './PromptMessages';
import '../resource-detail/resourceDetail.css';

export type PromptEntry = RegistryEntry & { contract: PromptContract };

export function PromptDetail({ entry }: { entry: PromptEntry }) {
  const { contract } = entry;
  const headingId = useId();
  const transport = useTransport();
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(contract.arguments.map((argument) => [argument.name, ''])));
  const get = useMutation({ mutationFn: (args: Record<string, string>) => transport.getPrompt({ id: entry.id, arguments: args }) });
  const missing = contract.arguments.filter((argument) => argument.required && values[argument.name] === '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Empty optional arguments are left out rather than sent as "".
    if (missing.length === 0) get.mutate(Object.fromEntries(Object.entries(values).filter(([, value]) => value !== '')));
  };
  return (
    <section className="tool-detail prompt-detail" aria-labelledby={headingId} data-state={entry.state} data-kind="prompt">
      <CapabilityHeader entry={entry} headingId={headingId} badges={<DeclaredKindBadge kind="prompt" />} />
      <p className="tool-detail__description">{contract.description}</p>
      <DeclaredNotice entry={entry} />
      <DeclaredFacts contract={contract} />
      <form className="declared-form" onSubmit={submit} aria-label={`Arguments of ${contract.title}`}>
        {contract.arguments.length === 0 && <p className="muted">This prompt takes no arguments.</p>}
        {contract.arguments.map((argument) => (
          <CompletedField
            key={argument.name}
            capability={entry.id}
            name={argument.name}
            label={argument.title ?? argument.name}
            description={argument.description}
            required={argument.required}
            value={values[argument.name] ?? ''}
            context={values}
            onChange={(value) => setValues((before) => ({ ...before, [argument.name]: value }))}
          />
        ))}
        <div className="tool-detail__actions">
          <button type="submit" className="button button--primary" disabled={entry.state !== 'prompt' || get.isPending || missing.length > 0}>
            <Icon name={get.isPending ? 'spinner' : 'play'} className={get.isPending ? 'spin' : ''} />
            Get prompt
          </button>
          {missing.length > 0 && <span className="muted">Required: {missing.map((argument) => argument.title ?? argument.name).join(', ')}.</span>}
        </div>
      </form>
      <GetOutcome got={get.data} error={get.error} />
    </section>
  );
}

function GetOutcome({ got, error }: { got: GetPromptOutput | undefined; error: unknown }) {
  const headingId = useId();
  if (error) return <ErrorNotice what="The prompt could not be got" error={toErrorBody(error)} />;
  if (!got) return null;
  return (
    <section className="prompt-messages" aria-labelledby={headingId} data-request-id={got.requestId}>
      <h3 className="section-heading" id={headingId}>
        Messages
      </h3>
      <p className="muted resource-read__facts" role="status">
        {got.messages.length === 1 ? 'One message' : `${got.messages.length} messages`} in {formatDuration(got.durationMs)}; recorded as <code>{got.requestId}</code> in{' '}
        {got.taskId}.
      </p>
      {got.description && <p>{got.description}</p>}
      <PromptMessages messages={got.messages} />
    </section>
  );
}

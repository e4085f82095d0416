/**
 * A server's question, put to the operator, and the ways to answer it: a form built from the
 * requested schema with its defaults filled in (SEP-1034; enums as single or multiple choices,
 * titled or not, SEP-1330), a URL shown in full before it is opened, or a model reply written
 * by hand. The same component answers in the dialog (the operator's own call) and in Approvals
 * (an agent's call). The page checks the form as the gateway will; the gateway has the last word.
 */
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { applyElicitationDefaults, checkElicitationContent, elicitationFields, type DescribedField, type ElicitationValue } from '../../../shared/elicitation';
import type { ServerAskView } from '../../../shared/serverAsks';
import { toErrorBody } from '../../api/errors';
import { CopyButton } from '../../ui/CopyButton';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { formatJson } from '../../ui/JsonBlock';
import { useTransport } from '../../api/hooks';
import { useNow } from '../../ui/useNow';
import { useAnswerAsk } from '../approvals/useAsks';
import './askAnswer.css';
import { visibleText } from '../../../shared/visibleText';

type Draft = Record<string, ElicitationValue | undefined>;

export function AskAnswer({ ask, headingLevel = 3 }: { ask: ServerAskView; headingLevel?: 2 | 3 }) {
  const now = useNow();
  const left = Math.max(0, Math.round((Date.parse(ask.expiresAt) - now) / 1000));
  const Heading = `h${headingLevel}` as 'h2' | 'h3';
  return (
    <article className="ask" aria-label={`${ask.server} asks`} data-ask-id={ask.id}>
      <Heading className="ask__heading">
        <code>{ask.server}</code> {ask.kind === 'sampling' ? 'asks for a model reply' : ask.mode === 'url' ? 'asks you to open a page' : 'asks for information'}
      </Heading>
      <p className="muted ask__where">
        {ask.requestId ? (
          <>
            During {ask.principal === 'operator' ? 'your' : <strong>{ask.principal}</strong>}
            {ask.principal === 'operator' ? '' : "'s"} call to <code>{ask.capability ?? ask.server}</code> (<code>{ask.requestId}</code>)
          </>
        ) : (
          'During a call to this server'
        )}
        {' · '}
        {left > 0 ? `expires in ${left} s` : 'expiring'}
      </p>
      {ask.kind === 'sampling' ? <SamplingAnswer ask={ask} /> : ask.mode === 'url' ? <UrlAnswer ask={ask} /> : <FormAnswer ask={ask} />}
    </article>
  );
}

function Message({ text }: { text: string }) {
  return <p className="ask__message">{text ? visibleText(text, { keepNewlines: true }) : <span className="muted">(the server gave no message)</span>}</p>;
}

/** Accept / Decline / Cancel, the way every answer ends. */
function Answers({ children, busy, onDecline, onCancel, declineLabel = 'Decline' }: { children: ReactNode; busy: boolean; onDecline(): void; onCancel?: () => void; declineLabel?: string }) {
  return (
    <div className="ask__answers">
      {children}
      <button type="button" className="button" disabled={busy} onClick={onDecline}>
        {declineLabel}
      </button>
      {onCancel && (
        <button type="button" className="button button--quiet" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      )}
    </div>
  );
}

function FormAnswer({ ask }: { ask: ServerAskView }) {
  const answer = useAnswerAsk();
  const formId = useId();
  const { fields, unsupported } = elicitationFields(ask.requestedSchema);
  const [draft, setDraft] = useState<Draft>(() => applyElicitationDefaults(ask.requestedSchema, {}) as Draft);
  const [tried, setTried] = useState(false);
  const content = Object.fromEntries(Object.entries(draft).filter(([, value]) => value !== undefined && value !== '')) as Record<string, ElicitationValue>;
  const problems = tried ? checkElicitationContent(ask.requestedSchema, content) : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (Object.keys(checkElicitationContent(ask.requestedSchema, content)).length > 0) return;
    answer.mutate({ id: ask.id, action: 'accept', content });
  };
  return (
    <form className="ask__form" noValidate onSubmit={submit} aria-label={`Answer ${ask.server}`}>
      <Message text={ask.message} />
      {fields.map((described) => (
        <AskField
          key={described.field.name}
          id={`${formId}-${described.field.name}`}
          described={described}
          value={draft[described.field.name]}
          problem={problems[described.field.name]}
          onChange={(value) => setDraft((current) => ({ ...current, [described.field.name]: value }))}
        />
      ))}
      {unsupported.length > 0 && <p className="muted">Left out, of a kind MCP forms do not allow: {unsupported.join(', ')}.</p>}
      {answer.error && <ErrorNotice what="The answer was not taken" error={toErrorBody(answer.error)} />}
      <Answers busy={answer.isPending} onDecline={() => answer.mutate({ id: ask.id, action: 'decline' })} onCancel={() => answer.mutate({ id: ask.id, action: 'cancel' })}>
        <button type="submit" className="button button--primary" disabled={answer.isPending}>
          Accept and send
        </button>
      </Answers>
    </form>
  );
}

function AskField({ id, described, value, problem, onChange }: { id: string; described: DescribedField; value: ElicitationValue | undefined; problem: string | undefined; onChange(value: ElicitationValue | undefined): void }) {
  const { field, title, description, required } = described;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [description ? hintId : '', problem ? errorId : ''].filter(Boolean).join(' ') || undefined;
  const common = { id, 'aria-describedby': describedBy, 'aria-invalid': problem ? true : undefined, 'aria-required': required || undefined };
  const label = (
    <>
      {visibleText(title)}
      {required && <span className="ask__required"> (required)</span>}
    </>
  );
  const hint = description && (
    <span id={hintId} className="form-field__hint">
      {visibleText(description)}
    </span>
  );
  const error = problem && (
    <span id={errorId} className="form-field__error">
      {problem}
    </span>
  );
  if (field.kind === 'boolean') {
    return (
      <div className="field">
        <label className="checkbox">
          <input type="checkbox" {...common} checked={value === true} onChange={(event) => onChange(event.target.checked)} />
          {label}
        </label>
        {hint}
        {error}
      </div>
    );
  }
  if (field.kind === 'multiselect') {
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset className="field ask__choices" aria-describedby={describedBy}>
        <legend>{label}</legend>
        {field.options.map((option) => (
          <label key={option.value} className="checkbox">
            <input
              type="checkbox"
              checked={chosen.includes(option.value)}
              onChange={(event) => onChange(event.target.checked ? [...chosen, option.value] : chosen.filter((item) => item !== option.value))}
            />
            {visibleText(option.title)}
          </label>
        ))}
        {hint}
        {error}
      </fieldset>
    );
  }
  let control: ReactNode;
  if (field.kind === 'select') {
    control = (
      <select {...common} className="input" value={typeof value === 'string' ? value : ''} onChange={(event) => onChange(event.target.value || undefined)}>
        <option value="">{required ? 'Choose…' : '(none)'}</option>
        {field.options.map((option) => (
          <option key={option.value} value={option.value}>
            {visibleText(option.title)}
          </option>
        ))}
      </select>
    );
  } else if (field.kind === 'number') {
    control = (
      <input
        {...common}
        className="input"
        type="number"
        step={field.integer ? 1 : 'any'}
        {...(field.minimum !== null && { min: field.minimum })}
        {...(field.maximum !== null && { max: field.maximum })}
        value={typeof value === 'number' ? value : ''}
        onChange={(event) => onChange(event.target.value === '' ? undefined : Number(event.target.value))}
      />
    );
  } else {
    const type = field.format === 'email' ? 'email' : field.format === 'uri' ? 'url' : field.format === 'date' ? 'date' : 'text';
    control = <input {...common} className="input" type={type} value={typeof value === 'string' ? value : ''} onChange={(event) => onChange(event.target.value)} />;
  }
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {control}
      {hint}
      {error}
    </div>
  );
}

/** The page the server wants opened: shown whole first; opened only by the operator, and only an http(s) one. */
function UrlAnswer({ ask }: { ask: ServerAskView }) {
  const answer = useAnswerAsk();
  // The desktop app's window opens no pages: there the gateway opens the ask's own address in the system browser.
  const desktop = useTransport().kind === 'ipc';
  const url = ask.url ?? '';
  let host = '';
  let openable = false;
  // Shown as the URL parser writes it (a right-to-left override in the path percent-encoded, the host in ASCII), or as text with its controls visible.
  let shownUrl = visibleText(url);
  try {
    const parsed = new URL(url);
    host = parsed.host;
    shownUrl = parsed.href;
    openable = parsed.protocol === 'https:' || parsed.protocol === 'http:';
  } catch {
    // Not a URL at all: shown as given, never opened.
  }
  const open = () => {
    if (!desktop) window.open(url, '_blank', 'noopener,noreferrer');
    answer.mutate({ id: ask.id, action: 'accept', ...(desktop ? { open: true } : {}) });
  };
  return (
    <div className="ask__form">
      <Message text={ask.message} />
      <p className="ask__url">
        <span className="muted">The page:</span> <code data-testid="ask-url">{shownUrl}</code>
        {host && (
          <span className="muted">
            {' '}
            on <strong>{host}</strong>
          </span>
        )}{' '}
        <CopyButton text={url} label="Copy the address" />
      </p>
      {!openable && <p className="notice notice--error">This is not an http or https address; Capstan will not open it.</p>}
      {answer.error && <ErrorNotice what="The answer was not taken" error={toErrorBody(answer.error)} />}
      <Answers busy={answer.isPending} onDecline={() => answer.mutate({ id: ask.id, action: 'decline' })} onCancel={() => answer.mutate({ id: ask.id, action: 'cancel' })}>
        <button type="button" className="button button--primary" disabled={answer.isPending || !openable} onClick={open}>
          {desktop ? 'Open in your browser' : 'Open the page'}
        </button>
      </Answers>
    </div>
  );
}

/** A model reply written by the operator (as MCP Inspector lets one do); no model is called. */
function SamplingAnswer({ ask }: { ask: ServerAskView }) {
  const answer = useAnswerAsk();
  const replyId = useId();
  const [reply, setReply] = useState('');
  const sampling = ask.sampling!;
  return (
    <form
      className="ask__form"
      onSubmit={(event) => {
        event.preventDefault();
        if (reply.trim()) answer.mutate({ id: ask.id, action: 'accept', reply });
      }}
      aria-label={`Answer ${ask.server}`}
    >
      <Message text="No model is called: write the reply the server gets as the model's message, or refuse." />
      <dl className="ask__sampling">
        {sampling.systemPrompt && (
          <div>
            <dt>System prompt</dt>
            <dd>{sampling.systemPrompt}</dd>
          </div>
        )}
        {sampling.messages.map((message, index) => (
          <div key={index}>
            <dt>{message.role}</dt>
            <dd>{textOf(message.content)}</dd>
          </div>
        ))}
        <div>
          <dt>Limits</dt>
          <dd>
            {sampling.maxTokens !== null ? `at most ${sampling.maxTokens} tokens` : 'no token limit given'}
            {sampling.modelHints.length > 0 ? `; the server would like ${sampling.modelHints.join(', ')}` : ''}
          </dd>
        </div>
      </dl>
      <label htmlFor={replyId}>Your reply</label>
      <textarea id={replyId} className="input ask__reply" rows={4} value={reply} onChange={(event) => setReply(event.target.value)} />
      {answer.error && <ErrorNotice what="The answer was not taken" error={toErrorBody(answer.error)} />}
      <Answers busy={answer.isPending} declineLabel="Refuse" onDecline={() => answer.mutate({ id: ask.id, action: 'decline' })}>
        <button type="submit" className="button button--primary" disabled={answer.isPending || !reply.trim()}>
          Send reply
        </button>
      </Answers>
    </form>
  );
}

function textOf(content: unknown): string {
  const block = content as { type?: unknown; text?: unknown } | null;
  if (block?.type === 'text' && typeof block.text === 'string') return block.text;
  return formatJson(content);
}

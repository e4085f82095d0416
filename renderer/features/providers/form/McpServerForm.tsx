/**
 * Adds or edits one MCP server: a stdio command (with arguments, environment and working
 * folder) or a Streamable HTTP url (with headers), optional limits, and whether it connects.
 * The page checks what it can before sending (serverDraft.ts); the gateway checks again, saves
 * config.json and connects. Secrets arrive masked and are only ever replaced, never shown.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { DEFAULT_MCP_MAX_RESULT_BYTES, DEFAULT_MCP_TIMEOUT_MS, DEFAULT_MCP_TOOL_TIMEOUT_MS, type McpServerView } from '../../../../shared/mcp';
import { toErrorBody } from '../../../api/errors';
import { ErrorNotice } from '../../../ui/ErrorNotice';
import { useSaveMcpServer } from '../useMcpServers';
import { Field, fieldId } from './Field';
import { LimitsFields } from './LimitsFields';
import { RowsEditor } from './RowsEditor';
import { SecretInput } from './SecretInput';
import { draftFromView, emptyDraft, entryFromDraft, validateDraft, type FieldErrors, type ServerDraft } from './serverDraft';

interface McpServerFormProps {
  /** The server to edit; absent to add one. */
  server?: McpServerView | undefined;
  /** Provider names already in use (a new server may not take one). */
  takenNames: readonly string[];
  onDone(savedName: string | null): void;
}

export function McpServerForm({ server, takenNames, onDone }: McpServerFormProps) {
  const formId = useId();
  const form = useRef<HTMLFormElement>(null);
  const adding = server === undefined;
  const [draft, setDraft] = useState<ServerDraft>(() => (server ? draftFromView(server) : emptyDraft()));
  const [attempts, setAttempts] = useState(0);
  const save = useSaveMcpServer();
  const set = (change: Partial<ServerDraft>) => setDraft((current) => ({ ...current, ...change }));
  const id = (field: string) => fieldId(formId, field);
  // Once the operator has tried to save, errors follow every edit; before that, none are shown.
  const shown: FieldErrors = attempts > 0 ? validateDraft(draft, takenNames, adding) : {};
  const count = Object.keys(shown).length;

  // After a refused save, take the keyboard to the first field that needs attention.
  useEffect(() => {
    if (attempts > 0) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [attempts]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (Object.keys(validateDraft(draft, takenNames, adding)).length > 0) return setAttempts((n) => n + 1);
    const name = draft.name.trim();
    save.mutate({ name, entry: entryFromDraft(draft) }, { onSuccess: () => onDone(name) });
  };

  return (
    <form ref={form} className="server-form" noValidate onSubmit={submit} aria-label={adding ? 'Add an MCP server' : `Edit ${draft.name}`}>
      {count > 0 && (
        <p className="notice notice--error" role="alert">
          {count === 1 ? 'One field needs' : `${count} fields need`} attention before this can be saved.
          {shown.form && <> {shown.form}</>}
        </p>
      )}
      {adding ? (
        <Field id={id('name')} label="Name" hint="The provider's name, and the first half of its tools' ids (name:tool)." error={shown.name}>
          {(control) => <input {...control} className="input" value={draft.name} autoComplete="off" spellCheck={false} onChange={(e) => set({ name: e.target.value })} />}
        </Field>
      ) : (
        <p className="server-form__name">
          Name <code>{draft.name}</code> <span className="muted">(to rename a server, remove it and add it again)</span>
        </p>
      )}

      <fieldset className="server-form__transport">
        <legend>Transport</legend>
        {(
          [
            ['stdio', 'Local command (stdio)', 'Capstan starts the server as a child process and speaks to it over stdin and stdout.'],
            ['http', 'Streamable HTTP', 'Capstan connects to a server already running at a URL.'],
          ] as const
        ).map(([value, label, hint]) => (
          <label key={value} className="radio">
            <input type="radio" name={`${formId}-transport`} value={value} checked={draft.transport === value} onChange={() => set({ transport: value })} />
            <span>
              {label} <span className="muted">— {hint}</span>
            </span>
          </label>
        ))}
      </fieldset>

      {draft.transport === 'stdio' ? (
        <>
          <Field id={id('command')} label="Command" hint="The program to run, e.g. node, npx or uvx, found on PATH or given as a full path." error={shown.command}>
            {(control) => <input {...control} className="input input--mono" value={draft.command} autoComplete="off" spellCheck={false} onChange={(e) => set({ command: e.target.value })} />}
          </Field>
          <RowsEditor formId={formId} field="args" legend="Arguments" hint="Passed as they are, one per row: no shell quoting needed." noun="argument" rows={draft.args} errors={shown} onChange={(args) => set({ args })} />
          <RowsEditor formId={formId} field="env" legend="Environment" hint="Variables added to Capstan's own environment for this server." noun="variable" rows={draft.env} errors={shown} onChange={(env) => set({ env })} />
          <Field id={id('cwd')} label="Working folder (optional)" hint="Where the command runs; Capstan's own working folder if empty." error={shown.cwd}>
            {(control) => <input {...control} className="input input--mono" value={draft.cwd} autoComplete="off" spellCheck={false} onChange={(e) => set({ cwd: e.target.value })} />}
          </Field>
        </>
      ) : (
        <>
          <Field id={id('url')} label="URL" hint="The server's MCP endpoint, http:// or https://." error={shown.url}>
            {(control) => (
              <SecretInput
                control={control}
                value={draft.url}
                masked={draft.urlMasked}
                stored={draft.urlStored ?? undefined}
                conceal={false}
                what="the URL"
                placeholder="http://127.0.0.1:3001/mcp"
                onChange={(url, urlMasked) => set({ url, urlMasked })}
              />
            )}
          </Field>
          <RowsEditor formId={formId} field="headers" legend="Headers" hint="Sent with every request, e.g. Authorization." noun="header" rows={draft.headers} errors={shown} onChange={(headers) => set({ headers })} />
        </>
      )}

      <RowsEditor
        formId={formId}
        field="roots"
        legend="Roots"
        hint="Folders the server may work in, offered to it as MCP roots (roots/list); none by default. Absolute paths, one per row. A change reaches a running server without restarting it."
        noun="root"
        rows={draft.roots}
        errors={shown}
        onChange={(roots) => set({ roots })}
      />

      <LimitsFields
        formId={formId}
        draft={draft}
        errors={shown}
        defaults={{ timeoutMs: DEFAULT_MCP_TIMEOUT_MS, toolTimeoutMs: DEFAULT_MCP_TOOL_TIMEOUT_MS, maxResultBytes: DEFAULT_MCP_MAX_RESULT_BYTES }}
        onChange={set}
      />

      <label className="checkbox server-form__enabled">
        <input type="checkbox" checked={draft.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
        Connect it now (enabled)
      </label>

      {save.error && <ErrorNotice what="Could not save the server" error={toErrorBody(save.error)} />}
      <div className="dialog__footer server-form__actions">
        <button type="button" className="button" onClick={() => onDone(null)}>
          Cancel
        </button>
        <button type="submit" className="button button--primary" aria-disabled={save.isPending} disabled={save.isPending}>
          {save.isPending ? 'Saving…' : adding ? 'Add server' : 'Save changes'}
        </button>
      </div>
    </form>
  );
}

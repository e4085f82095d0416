/**
 * A tool's arguments, composed in a form generated from its input schema (RJSF) or as JSON
 * text, switchable either way without losing what was typed. Both edit the same draft
 * (state/argumentDrafts.ts, which Re-run fills from outside), and both are checked in the page
 * against the rules the gateway applies (argumentCheck.ts): a problem shows on its field once
 * the field has been visited, every problem shows when Execute or Review is pressed, and a call
 * the page knows is invalid is not handed on (onSubmit only ever sees arguments that passed).
 */
import Form from '@rjsf/core';
import type { RJSFSchema } from '@rjsf/utils';
import { useEffect, useId, useMemo, useRef, useState, type FocusEvent, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import type { ArgumentProblem } from '../../../shared/argumentRules';
import { setDraft, useDraft, type ArgumentDraft } from '../../state/argumentDrafts';
import { formatJson } from '../../ui/JsonBlock';
import { checkArguments } from './argumentCheck';
import { formSchema } from './literalPatterns';
import { parseArgumentsJson } from './argumentJson';
import { argumentUiSchema } from './argumentUi';
import { formButtonTemplates } from './formButtons';
import { argumentWidgets, BaseInputTemplate, FieldErrorTemplate } from './formTemplates';
import { argumentValidator, toErrorSchema } from './rjsfValidator';
import './toolForm.css';

const templates = { ButtonTemplates: formButtonTemplates, BaseInputTemplate, FieldErrorTemplate };

export type EditorMode = 'form' | 'json';

interface ToolFormProps {
  /** The tool's capability id: whose draft this edits. */
  capabilityId: string;
  schema: Record<string, unknown>;
  disabled?: boolean;
  /** Called with arguments the page found valid, exactly as they are to be sent. */
  onSubmit(args: Record<string, unknown>): void;
  /** The actions, rendered inside the form so Enter in a field (Ctrl+Enter in JSON) submits it. */
  children?: ReactNode;
}

/** The arguments exactly as they will be sent: empty fields (undefined) dropped, as JSON would. */
export function toArguments(formData: unknown): Record<string, unknown> {
  if (typeof formData !== 'object' || formData === null || Array.isArray(formData)) return {};
  return JSON.parse(JSON.stringify(formData)) as Record<string, unknown>;
}

export const hasArguments = (schema: Record<string, unknown>) =>
  typeof schema.properties === 'object' && schema.properties !== null && Object.keys(schema.properties).length > 0;

/** RJSF's id for the field at a path (idPrefix "root", separator "_"). */
const fieldId = (path: readonly string[]) => ['root', ...path].join('_');

interface JsonText {
  text: string;
  /** The draft this text was last in step with; a different draft (Re-run) replaces the text. */
  from: ArgumentDraft;
  /** Why the text cannot be the arguments, or null when it parses to an object the gateway can take. */
  error: string | null;
}

const jsonTextOf = (draft: ArgumentDraft): JsonText => ({ text: formatJson(draft), from: draft, error: null });

export function ToolForm({ capabilityId, schema, disabled = false, onSubmit, children }: ToolFormProps) {
  const draft = useDraft(capabilityId);
  const [mode, setMode] = useState<EditorMode>('form');
  const [json, setJson] = useState<JsonText>(() => jsonTextOf(draft));
  const [switchRefused, setSwitchRefused] = useState(false);
  const [visited, setVisited] = useState<ReadonlySet<string>>(new Set());
  const [jsonEdited, setJsonEdited] = useState(false);
  /** Counts the presses that were refused: each one shows every problem and is announced again. */
  const [refusals, setRefusals] = useState(0);
  const container = useRef<HTMLDivElement>(null);
  const uid = useId();
  const ids = { json: `${uid}-json`, jsonError: `${uid}-json-error`, jsonProblems: `${uid}-json-problems`, summary: `${uid}-summary` };

  // A draft set from elsewhere (Re-run) while the JSON is shown replaces the text.
  if (mode === 'json' && json.from !== draft) setJson(jsonTextOf(draft));

  const problems = useMemo(() => (disabled ? [] : checkArguments(schema, draft)), [schema, draft, disabled]);
  const showAll = refusals > 0;
  const shown = useMemo(() => (showAll ? problems : problems.filter((problem) => visited.has(fieldId(problem.path)))), [problems, showAll, visited]);
  const extraErrors = useMemo(() => toErrorSchema(shown), [shown]);
  const uiSchema = useMemo(() => argumentUiSchema(schema, draft), [schema, draft]);
  // RJSF tests `patternProperties` with `new RegExp`: it gets them as RE2 decided them (literalPatterns.ts).
  const rendered = useMemo(() => formSchema(schema, draft), [schema, draft]);
  const blocked = refusals > 0 && (problems.length > 0 || (mode === 'json' && json.error !== null));

  // After a refused press, take the operator to the first thing to fix.
  useEffect(() => {
    if (refusals === 0) return;
    const root = container.current;
    const target = root?.querySelector<HTMLElement>('[aria-invalid="true"]') ?? root?.querySelector<HTMLElement>(`[id="${ids.summary}"]`);
    target?.focus();
    // Only a new refusal moves focus, not each keystroke after it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [refusals]);

  const submit = (args: Record<string, unknown>) => {
    if (disabled) return;
    if (checkArguments(schema, args).length > 0) {
      setRefusals((count) => count + 1);
      return;
    }
    onSubmit(args);
  };

  const submitJson = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseArgumentsJson(json.text);
    if ('error' in parsed) {
      setJson((current) => ({ ...current, error: parsed.error }));
      setRefusals((count) => count + 1);
      return;
    }
    submit(parsed.args);
  };

  const editJson = (text: string) => {
    setJsonEdited(true);
    setSwitchRefused(false);
    const parsed = parseArgumentsJson(text);
    if ('error' in parsed) {
      setJson({ text, from: draft, error: parsed.error });
      return;
    }
    setJson({ text, from: parsed.args, error: null });
    setDraft(capabilityId, parsed.args);
  };

  const switchTo = (next: EditorMode) => {
    if (next === mode) return;
    if (next === 'json') {
      setJson(jsonTextOf(draft));
      setSwitchRefused(false);
      setMode('json');
      return;
    }
    // The form can only show an object: text that is not one stays until it is fixed.
    if (json.error !== null) {
      setSwitchRefused(true);
      document.getElementById(ids.json)?.focus();
      return;
    }
    setMode('form');
  };

  // A field counts as visited when focus leaves it for anything but a button: pressing Execute
  // shows every problem anyway, and a problem line appearing on that blur would move the button
  // from under the pointer between press and release, losing the click.
  const markVisited = (event: FocusEvent<HTMLDivElement>) => {
    const { id } = event.target;
    const next = event.relatedTarget;
    if (!id.startsWith('root') || (next instanceof HTMLElement && next.closest('button'))) return;
    setVisited((current) => (current.has(id) ? current : new Set(current).add(id)));
  };

  const submitOnCtrlEnter = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      event.currentTarget.form?.requestSubmit();
    }
  };

  const summary = blocked && (
    // Keyed by the refusal, so each refused press is announced again.
    <div key={refusals} id={ids.summary} className="argument-summary" role="alert" tabIndex={-1}>
      <p>
        <strong>Not sent.</strong> {mode === 'json' && json.error ? 'The JSON must be fixed first.' : problemCount(problems)}
      </p>
      {!(mode === 'json' && json.error) && <ProblemList problems={problems} />}
    </div>
  );

  // Problems under the JSON as it is edited; after a refused press the summary lists them instead.
  const jsonShowsProblems = jsonEdited && !blocked && json.error === null && problems.length > 0;
  const jsonError = json.error;
  const jsonDescribedBy = [jsonError && ids.jsonError, jsonShowsProblems && ids.jsonProblems, blocked && ids.summary].filter(Boolean).join(' ') || undefined;

  return (
    <div ref={container} className="argument-editor" onBlur={mode === 'form' ? markVisited : undefined}>
      {hasArguments(schema) && (
        <div className="argument-editor__bar">
          <div className="segmented" role="group" aria-label="Edit arguments as">
            <button type="button" className="segmented__option" aria-pressed={mode === 'form'} onClick={() => switchTo('form')}>
              Form
            </button>
            <button type="button" className="segmented__option" aria-pressed={mode === 'json'} onClick={() => switchTo('json')}>
              JSON
            </button>
          </div>
          {Array.isArray(schema.required) && schema.required.length > 0 && (
            <p className="argument-editor__legend muted">
              <span className="required" aria-hidden="true">
                *
              </span>{' '}
              required
            </p>
          )}
        </div>
      )}

      {mode === 'form' ? (
        <Form
          className="tool-form"
          schema={rendered as RJSFSchema}
          uiSchema={uiSchema}
          templates={templates}
          widgets={argumentWidgets}
          validator={argumentValidator}
          // The page checks with argumentCheck.ts and shows its verdict as extraErrors; RJSF's
          // own pass and the browser's bubbles would only say it again, differently.
          noValidate
          noHtml5Validate
          showErrorList={false}
          extraErrors={extraErrors}
          formData={draft}
          disabled={disabled}
          onChange={(event) => setDraft(capabilityId, toArguments(event.formData))}
          onSubmit={(event) => submit(toArguments(event.formData))}
        >
          {summary}
          {children}
        </Form>
      ) : (
        <form className="tool-form json-form" noValidate onSubmit={submitJson}>
          <label htmlFor={ids.json}>Arguments (JSON)</label>
          <textarea
            id={ids.json}
            className="json-editor"
            value={json.text}
            rows={Math.min(18, Math.max(6, json.text.split('\n').length + 1))}
            spellCheck={false}
            autoCapitalize="off"
            autoComplete="off"
            readOnly={disabled}
            aria-invalid={jsonError !== null || jsonShowsProblems || blocked || undefined}
            aria-describedby={jsonDescribedBy}
            onChange={(event) => editJson(event.target.value)}
            onKeyDown={submitOnCtrlEnter}
          />
          {jsonError && (
            <div id={ids.jsonError} className="field-error">
              <p>{jsonError}</p>
              {switchRefused && <p>The form can only show valid JSON: fix it before switching back.</p>}
            </div>
          )}
          {jsonShowsProblems && (
            <div id={ids.jsonProblems} className="field-error">
              <ProblemList problems={problems} />
            </div>
          )}
          {summary}
          {children}
        </form>
      )}
    </div>
  );
}

const problemCount = (problems: readonly ArgumentProblem[]) =>
  problems.length === 1 ? 'One argument needs fixing:' : `${problems.length} arguments need fixing:`;

function ProblemList({ problems }: { problems: readonly ArgumentProblem[] }) {
  return (
    <ul className="argument-problems">
      {problems.map((problem) => (
        <li key={`${problem.field} ${problem.message}`}>
          <code>{problem.field}</code> {problem.message}
        </li>
      ))}
    </ul>
  );
}

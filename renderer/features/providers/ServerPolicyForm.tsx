/**
 * An MCP server's policy, in its place in the Providers panel: a default for all its tools
 * (confirm every call, a risk floor, accept new tools without review) and per-tool overrides,
 * beside what each tool declared and what Capstan decided. Saved to config.json's toolPolicy and
 * the server's entry by the gateway, and in effect at once (the registry follows through the
 * catalog's events). Only tightening is offered: nothing below the annotations' conservative reading.
 */
import { useId, useState, type FormEvent } from 'react';
import type { RiskLevel, ToolContract } from '../../../shared/capability';
import type { McpServerView, PolicyTightening, ToolDecisionView } from '../../../shared/mcp';
import { useCatalog } from '../../api/hooks';
import { toErrorBody } from '../../api/errors';
import { MutatingBadge, RiskBadge } from '../../ui/badges';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { decisionsOf, declaredWords, draftFromPolicy, policyInput, RISK_LEVELS, riskOptions, type PolicyDraft } from './policyDraft';
import { useSetServerPolicy } from './useMcpServers';

interface ServerPolicyFormProps {
  server: McpServerView;
  onDone(): void;
}

export function ServerPolicyForm({ server, onDone }: ServerPolicyFormProps) {
  const formId = useId();
  const [draft, setDraft] = useState<PolicyDraft>(() => draftFromPolicy(server.policy));
  const [saved, setSaved] = useState(false);
  const save = useSetServerPolicy();
  const catalog = useCatalog();
  const decisions = decisionsOf(server);
  const inEffect = new Map(
    (catalog.data?.capabilities ?? []).flatMap(({ contract }) => (contract.kind === 'tool' && contract.provider === server.name ? [[contract.name, contract] as const] : [])),
  );
  const set = (change: Partial<PolicyDraft>) => {
    setSaved(false);
    setDraft((current) => ({ ...current, ...change }));
  };
  const setTool = (tool: string, change: PolicyTightening) => {
    const { [tool]: own = {}, ...rest } = draft.tools;
    set({ tools: { ...rest, [tool]: { ...own, ...change } } });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(policyInput(server.name, draft, decisions), { onSuccess: () => setSaved(true) });
  };

  return (
    <form className="server-form server-policy" onSubmit={submit} aria-label={`Policy of ${server.name}`}>
      <p className="muted">
        What Capstan decides for <code>{server.name}</code>&apos;s tools from what they declare, tightened here for all of them or one by one. It is saved
        in config.json&apos;s <code>toolPolicy</code> and applies at once, in this console and in every task. A policy only tightens: nothing here goes
        below the careful reading of what a tool declares.
      </p>

      <fieldset>
        <legend>All of its tools</legend>
        <label className="checkbox">
          <input type="checkbox" checked={draft.confirmAll} onChange={(e) => set({ confirmAll: e.target.checked })} />
          Confirm every call
        </label>
        <label className="server-policy__risk" htmlFor={`${formId}-risk`}>
          Risk at least
          <select id={`${formId}-risk`} className="input" value={draft.riskAtLeast} onChange={(e) => set({ riskAtLeast: e.target.value as RiskLevel })}>
            {RISK_LEVELS.map((level) => (
              <option key={level} value={level}>
                {level}
              </option>
            ))}
          </select>
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={draft.acceptNewTools} aria-describedby={`${formId}-accept-hint`} onChange={(e) => set({ acceptNewTools: e.target.checked })} />
          Accept new tools without review
        </label>
        <p id={`${formId}-accept-hint`} className="form-field__hint">
          A tool this server adds later is pinned as it appears and can be called at once. Off (the default), it is held until you review and accept
          it. A tool that changes is held either way.
        </p>
      </fieldset>

      <div className="server-policy__tools">
        <table aria-label={`Tools of ${server.name}`}>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Declared</th>
              <th scope="col">Capstan decides</th>
              <th scope="col">Override</th>
              <th scope="col">In effect</th>
            </tr>
          </thead>
          <tbody>
            {decisions.map((tool) => (
              <ToolRow key={tool.name} tool={tool} draft={draft} contract={inEffect.get(tool.name)} onChange={(change) => setTool(tool.name, change)} />
            ))}
          </tbody>
        </table>
        {decisions.length === 0 && <p className="muted">No tools listed yet: overrides can be set once the server has connected.</p>}
      </div>

      {save.error && <ErrorNotice what="Could not save the policy" error={toErrorBody(save.error)} />}
      {saved && (
        <p role="status" className="notice">
          Saved: in effect now.
        </p>
      )}
      <div className="dialog__footer server-form__actions">
        <button type="button" className="button" onClick={onDone}>
          Back to the providers
        </button>
        <button type="submit" className="button button--primary" aria-disabled={save.isPending} disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save policy'}
        </button>
      </div>
    </form>
  );
}

interface ToolRowProps {
  tool: ToolDecisionView;
  draft: PolicyDraft;
  contract: ToolContract | undefined;
  onChange(change: PolicyTightening): void;
}

function ToolRow({ tool, draft, contract, onChange }: ToolRowProps) {
  const { name, declared, decided } = tool;
  const own = draft.tools[name] ?? {};
  const floors = riskOptions(decided.riskLevel, draft.riskAtLeast);
  const chosen = own.riskLevel && floors.includes(own.riskLevel) ? own.riskLevel : '';
  return (
    <tr data-tool={name}>
      <th scope="row">
        <code>{name}</code>
      </th>
      <td data-testid="declared">{declaredWords(declared)}</td>
      <td data-testid="decided">
        <RiskBadge risk={decided.riskLevel} /> {decided.needConfirm ? 'confirm' : 'no confirmation'}
        {decided.mutating && <>, writes</>}
      </td>
      <td className="server-policy__override">
        <label className="checkbox" title={decided.needConfirm ? 'Its annotations already require confirmation' : draft.confirmAll ? 'Every call of this server is confirmed' : undefined}>
          <input
            type="checkbox"
            aria-label={`Confirm every call of ${name}`}
            checked={decided.needConfirm || draft.confirmAll || own.needConfirm === true}
            disabled={decided.needConfirm || draft.confirmAll}
            onChange={(e) => onChange({ needConfirm: e.target.checked ? true : undefined })}
          />
          Confirm
        </label>
        <select
          className="input"
          aria-label={`Risk at least for ${name}`}
          value={chosen}
          disabled={floors.length === 0}
          onChange={(e) => onChange({ riskLevel: (e.target.value || undefined) as RiskLevel | undefined })}
        >
          <option value="">as decided</option>
          {floors.map((level) => (
            <option key={level} value={level}>
              at least {level}
            </option>
          ))}
        </select>
        <label className="checkbox" title={decided.mutating ? 'Its annotations already say it writes' : undefined}>
          <input
            type="checkbox"
            aria-label={`Mark ${name} as writing`}
            checked={decided.mutating || draft.mutatingAll || own.mutating === true}
            disabled={decided.mutating || draft.mutatingAll}
            onChange={(e) => onChange({ mutating: e.target.checked ? true : undefined })}
          />
          Writes
        </label>
      </td>
      <td data-testid="in-effect">
        {contract ? (
          <>
            <RiskBadge risk={contract.riskLevel} /> {contract.needConfirm ? 'confirm' : 'no confirmation'}
            {contract.mutating && (
              <>
                {' '}
                <MutatingBadge />
              </>
            )}
            {(contract.tightenedBy?.length ?? 0) > 0 && (
              <span className="muted server-policy__by">
                {' '}
                by{' '}
                {contract.tightenedBy!.map((pattern, index) => (
                  <span key={pattern}>
                    {index > 0 && ', '}
                    <code>{pattern}</code>
                  </span>
                ))}
              </span>
            )}
          </>
        ) : (
          <span className="muted">not in the catalog</span>
        )}
      </td>
    </tr>
  );
}

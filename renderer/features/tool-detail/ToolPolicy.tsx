/**
 * How a tool's policy came about, side by side: the annotations its MCP server declared (hints,
 * with MCP's defaults where it said nothing) and what Capstan decided from them (risk,
 * confirmation, whether it writes data), with the config.json patterns that tightened the
 * decision. Builtin tools have no declaration: their policy is Capstan's own.
 */
import { useId } from 'react';
import type { ToolAnnotations, ToolContract } from '../../../shared/capability';

type Hint = Exclude<keyof ToolAnnotations, 'title'>;

/** The MCP specification's defaults for an annotation a server leaves out. */
const hints: readonly { key: Hint; label: string; mcpDefault: boolean }[] = [
  { key: 'readOnlyHint', label: 'Read-only', mcpDefault: false },
  { key: 'destructiveHint', label: 'Destructive', mcpDefault: true },
  { key: 'idempotentHint', label: 'Idempotent', mcpDefault: false },
  { key: 'openWorldHint', label: 'Open world', mcpDefault: true },
];

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** Whether there is more to say than the badges do: the tool came with a declaration, or config.json tightened it. */
export const hasPolicyOrigin = (tool: ToolContract) => tool.declared !== undefined || (tool.tightenedBy?.length ?? 0) > 0;

export function ToolPolicy({ tool }: { tool: ToolContract }) {
  const headingId = useId();
  const { declared, tightenedBy = [] } = tool;
  return (
    <section className="tool-policy" aria-labelledby={headingId}>
      <h3 id={headingId} className="section-heading">
        Policy: declared and decided
      </h3>
      <div className="tool-policy__columns">
        <div className="tool-policy__column">
          <h4 className="subheading">Declared by the server</h4>
          {declared === undefined ? (
            <p className="muted">Nothing: a {tool.provider} tool, whose policy is Capstan&apos;s own.</p>
          ) : (
            <>
              {declared === null && <p className="muted">The server declared no annotations, so MCP&apos;s conservative defaults apply.</p>}
              <dl className="policy-facts" aria-label="Declared by the server">
                {hints.map(({ key, label, mcpDefault }) => {
                  const value = declared?.[key];
                  return (
                    <div key={key} className="policy-facts__row">
                      <dt>
                        {label} <code className="muted">{key}</code>
                      </dt>
                      <dd data-testid={`declared-${key}`}>
                        {value === undefined ? <span className="muted">not declared (MCP default: {String(mcpDefault)})</span> : String(value)}
                      </dd>
                    </div>
                  );
                })}
                {declared?.title && (
                  <div className="policy-facts__row">
                    <dt>Title</dt>
                    <dd>{declared.title}</dd>
                  </div>
                )}
              </dl>
            </>
          )}
        </div>
        <div className="tool-policy__column">
          <h4 className="subheading">Decided by Capstan</h4>
          <dl className="policy-facts" aria-label="Decided by Capstan">
            <div className="policy-facts__row">
              <dt>Risk</dt>
              <dd data-testid="decided-risk">{tool.riskLevel}</dd>
            </div>
            <div className="policy-facts__row">
              <dt>Needs confirmation</dt>
              <dd data-testid="decided-confirm">{yesNo(tool.needConfirm)}</dd>
            </div>
            <div className="policy-facts__row">
              <dt>Writes data</dt>
              <dd data-testid="decided-mutating">{yesNo(tool.mutating)}</dd>
            </div>
          </dl>
          {(declared !== undefined || tightenedBy.length > 0) && (
            <p className="tool-policy__tightened" data-testid="tightened-by">
              {tightenedBy.length === 0 ? (
                <span className="muted">No config.json pattern tightened this.</span>
              ) : (
                <>
                  Tightened by config.json:{' '}
                  {tightenedBy.map((pattern, index) => (
                    <span key={pattern}>
                      {index > 0 && ', '}
                      <code>{pattern}</code>
                    </span>
                  ))}
                </>
              )}
            </p>
          )}
        </div>
      </div>
    </section>
  );
}

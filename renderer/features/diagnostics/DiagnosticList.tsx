/**
 * Diagnostics as the operator reads them: the whole reason first, then where (file and line),
 * which provider and capability, and for a skill file with a line, the lines around it
 * (GET /diagnostics/excerpt, read when opened). Reasons and lines quote untrusted files, so
 * control and bidirectional characters are shown rather than obeyed.
 */
import { useQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import type { Diagnostic } from '../../../shared/capability';
import { visibleText } from '../../../shared/visibleText';
import { useTransport } from '../../api/hooks';
import { toErrorBody } from '../../api/errors';
import { ErrorNotice } from '../../ui/ErrorNotice';
import { Icon } from '../../ui/Icon';

/** The provider whose diagnostics name files the gateway will excerpt. */
const SKILLS_PROVIDER = 'skills';

export function DiagnosticList({ diagnostics }: { diagnostics: readonly Diagnostic[] }) {
  return (
    <ul className="diagnostic-list">
      {diagnostics.map((diagnostic, index) => (
        // Diagnostics have no id and may repeat; their position in the gateway's list is stable between reads.
        <li key={index} className="diagnostic">
          <Icon name="alert" className="diagnostic__icon" />
          <div className="diagnostic__body">
            <p className="diagnostic__reason">{visibleText(diagnostic.reason)}</p>
            <dl className="diagnostic__where">
              <div>
                <dt>Provider</dt>
                <dd>
                  <code>{diagnostic.provider}</code>
                </dd>
              </div>
              {diagnostic.path !== null && (
                <div>
                  <dt>File</dt>
                  <dd>
                    <code className="facts__path">{visibleText(diagnostic.path)}</code>
                  </dd>
                </div>
              )}
              {diagnostic.line !== null && (
                <div>
                  <dt>Line</dt>
                  <dd>{diagnostic.line}</dd>
                </div>
              )}
              {diagnostic.capability !== null && (
                <div>
                  <dt>Capability</dt>
                  <dd>
                    <code>{visibleText(diagnostic.capability)}</code>
                  </dd>
                </div>
              )}
            </dl>
            {diagnostic.provider === SKILLS_PROVIDER && diagnostic.path !== null && diagnostic.line !== null && (
              <Excerpt path={diagnostic.path} line={diagnostic.line} />
            )}
          </div>
        </li>
      ))}
    </ul>
  );
}

function Excerpt({ path, line }: { path: string; line: number }) {
  const transport = useTransport();
  const [open, setOpen] = useState(false);
  const excerpt = useQuery({
    queryKey: ['diagnosticExcerpt', path, line],
    queryFn: () => transport.getDiagnosticExcerpt({ path, line }),
    enabled: open,
    retry: false,
  });
  return (
    <details className="diagnostic__excerpt" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Lines around line {line}</summary>
      {excerpt.error ? (
        <ErrorNotice what="Could not read the file" error={toErrorBody(excerpt.error)} />
      ) : excerpt.data ? (
        <pre className="excerpt" tabIndex={0} aria-label={`Lines ${excerpt.data.firstLine} to ${excerpt.data.firstLine + excerpt.data.lines.length - 1} of the file`}>
          {excerpt.data.lines.map((text, index) => {
            const number = excerpt.data.firstLine + index;
            // The newline stays outside the line's box: inside the marked line's inline-block it
            // would not break the excerpt's line, and the next line would be pushed out of view.
            return (
              <Fragment key={number}>
                <span className={`excerpt__line${number === line ? ' excerpt__line--at' : ''}`} data-line={number}>
                  <span className="excerpt__number" aria-hidden="true">
                    {number}
                  </span>
                  {text}
                </span>
                {'\n'}
              </Fragment>
            );
          })}
        </pre>
      ) : (
        <p className="loading muted">
          <Icon name="spinner" className="spin" /> Reading the file…
        </p>
      )}
    </details>
  );
}

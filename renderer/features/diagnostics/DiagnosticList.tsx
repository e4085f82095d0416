/** Diagnostics as the operator reads them: the reason first, then where (file and line), which provider and capability. */
import type { Diagnostic } from '../../../shared/capability';
import { Icon } from '../../ui/Icon';

export function DiagnosticList({ diagnostics }: { diagnostics: readonly Diagnostic[] }) {
  return (
    <ul className="diagnostic-list">
      {diagnostics.map((diagnostic, index) => (
        // Diagnostics have no id and may repeat; their position in the gateway's list is stable between reads.
        <li key={index} className="diagnostic">
          <Icon name="alert" className="diagnostic__icon" />
          <div className="diagnostic__body">
            <p className="diagnostic__reason">{diagnostic.reason}</p>
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
                    <code className="facts__path">{diagnostic.path}</code>
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
                    <code>{diagnostic.capability}</code>
                  </dd>
                </div>
              )}
            </dl>
          </div>
        </li>
      ))}
    </ul>
  );
}

/** The review's first rows, the same wherever a call is reviewed: which tool, and its risk. */
import type { RiskLevel } from '../../shared/capability';
import { visibleText } from '../../shared/visibleText';
import { MutatingBadge, RiskBadge } from './badges';

export function ToolReviewRows({ shownName, title, riskLevel, mutating }: { shownName: string; title: string; riskLevel: RiskLevel; mutating: boolean }) {
  return (
    <>
      <div className="review__row">
        <dt>Tool</dt>
        <dd>
          {/* The server's title: its control and bidirectional characters shown, so it cannot pass for another tool or reorder the row. */}
          <code className="review__tool">{shownName}</code> <span className="muted">{visibleText(title)}</span>
        </dd>
      </div>
      <div className="review__row">
        <dt>Risk</dt>
        <dd>
          <RiskBadge risk={riskLevel} /> {mutating && <MutatingBadge />}
        </dd>
      </div>
    </>
  );
}

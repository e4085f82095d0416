/** The review's first rows, the same wherever a call is reviewed: which tool, and its risk. */
import type { RiskLevel } from '../../shared/capability';
import { MutatingBadge, RiskBadge } from './badges';

export function ToolReviewRows({ shownName, title, riskLevel, mutating }: { shownName: string; title: string; riskLevel: RiskLevel; mutating: boolean }) {
  return (
    <>
      <div className="review__row">
        <dt>Tool</dt>
        <dd>
          <code className="review__tool">{shownName}</code> <span className="muted">{title}</span>
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

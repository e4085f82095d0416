/**
 * The progress of the task's running calls, whoever made them (the console, an agent over MCP, a
 * script), as their tools report it. Calls that report nothing are counted in "in flight" only.
 */
import { useMemo } from 'react';
import { useExecutions } from '../../state/executionsStore';
import { useProgress } from '../../state/progressStore';
import { CallProgressBar } from '../progress/CallProgressBar';

export function TaskProgress({ taskId }: { taskId: string }) {
  const byRequest = useProgress((state) => state.byRequest);
  const reports = useMemo(() => [...byRequest.values()].filter((report) => report.taskId === taskId), [byRequest, taskId]);
  const executions = useExecutions((state) => state.executions);
  if (reports.length === 0) return null;
  return (
    <div className="task-card__progress">
      <h4 className="subheading">Running calls</h4>
      <ul className="task-progress" aria-label="Progress of running calls">
        {reports.map((report) => {
          const tool = executions.find((execution) => execution.requestId === report.requestId)?.tool;
          return (
            <li key={report.requestId} aria-label={report.requestId}>
              <code className="muted">{tool ? `${tool} · ` : ''}{report.requestId}</code>
              <CallProgressBar report={report} label={tool ?? report.requestId} />
            </li>
          );
        })}
      </ul>
    </div>
  );
}

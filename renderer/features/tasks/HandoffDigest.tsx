/**
 * What a successor received of its predecessor, exactly: terminal status, final message, call
 * counts, the capability names the successor itself may discover, and the conversation up to
 * its submission. Never the predecessor's tool traffic, ledger or context: the gateway does
 * not hand those over, so they cannot appear here.
 */
import type { Handoff } from '../../../shared/tasks';
import { clockTime, shortTaskId } from '../../ui/format';
import { CallCounts } from './CallCounts';
import { TaskStateBadge } from './TaskStateBadge';

export function HandoffDigest({ handoff, predecessorTitle }: { handoff: Handoff; predecessorTitle: string | undefined }) {
  return (
    <details className="handoff" open>
      <summary>
        Handoff from <strong>{predecessorTitle ?? shortTaskId(handoff.predecessorId)}</strong>
      </summary>
      <dl className="facts handoff__facts" aria-label="Handoff digest">
        <div className="facts__row">
          <dt>Predecessor ended</dt>
          <dd>
            <TaskStateBadge state={handoff.terminalStatus} /> <code title={handoff.predecessorId}>{shortTaskId(handoff.predecessorId)}</code>
          </dd>
        </div>
        <div className="facts__row">
          <dt>Final message</dt>
          <dd data-testid="handoff-final-message">{handoff.finalMessage ?? <span className="muted">none (it did not finish with a message)</span>}</dd>
        </div>
        <div className="facts__row">
          <dt>Its calls</dt>
          <dd>
            <CallCounts counts={handoff.callCounts} />
          </dd>
        </div>
        <div className="facts__row">
          <dt>May discover ({handoff.discoverable.length})</dt>
          <dd>
            {handoff.discoverable.length > 0 ? (
              <ul className="chip-list" aria-label="Capabilities the successor may discover">
                {handoff.discoverable.map((name) => (
                  <li key={name}>
                    <code>{name}</code>
                  </li>
                ))}
              </ul>
            ) : (
              <span className="muted">nothing</span>
            )}
          </dd>
        </div>
      </dl>
      <h4 className="subheading">Conversation up to its submission</h4>
      {handoff.conversation.length > 0 ? (
        <ol className="conversation">
          {handoff.conversation.map((message, index) => (
            <li key={index} className={`conversation__message conversation__message--${message.role}`}>
              <span className="conversation__role">{message.role === 'operator' ? 'Operator' : 'Task'}</span>
              <span className="conversation__text">{message.text}</span>
              <time className="muted" dateTime={message.at}>
                {clockTime(message.at)}
              </time>
            </li>
          ))}
        </ol>
      ) : (
        <p className="muted">No conversation yet.</p>
      )}
    </details>
  );
}

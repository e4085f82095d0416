/**
 * A task's state in words, with its own icon and edge style as well as a colour, so no two
 * states are told apart by colour alone.
 */
import type { TaskState } from '../../../shared/tasks';
import { Icon, type IconName } from '../../ui/Icon';

export const taskStateLook: Record<TaskState, { label: string; icon: IconName; hint: string }> = {
  queued: { label: 'Queued', icon: 'clock', hint: 'Waits for the task ahead of it to end.' },
  blocked: {
    label: 'Blocked',
    icon: 'pause',
    hint: 'Asked to run only if its predecessor succeeded, which it did not: resume, cancel or supersede it.',
  },
  running: { label: 'Running', icon: 'play', hint: 'Takes calls and steers.' },
  cancelling: { label: 'Cancelling', icon: 'stop', hint: 'New calls are refused; running calls have been told to stop.' },
  quiescing: { label: 'Quiescing', icon: 'hourglass', hint: 'Waiting for its started calls to end before it ends.' },
  succeeded: { label: 'Succeeded', icon: 'check', hint: 'Finished by the operator as succeeded.' },
  failed: { label: 'Failed', icon: 'close', hint: 'Finished by the operator as failed.' },
  cancelled: { label: 'Cancelled', icon: 'ban', hint: 'Cancelled; side effects of its calls are not rolled back.' },
  superseded: { label: 'Superseded', icon: 'forward', hint: 'Cancelled and replaced by a newer task.' },
};

export function TaskStateBadge({ state }: { state: TaskState }) {
  const look = taskStateLook[state];
  return (
    <span className={`badge task-state task-state--${state}`} title={look.hint} data-task-state={state}>
      <Icon name={look.icon} className={state === 'cancelling' || state === 'quiescing' ? 'task-state__pulse' : ''} />
      {look.label}
    </span>
  );
}

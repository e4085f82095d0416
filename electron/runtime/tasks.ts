/**
 * Tasks as discovery needs them: each holds the catalog snapshot taken when it started, its
 * grants and its capability context. At most one task is active per session. (The task
 * runtime adds states, steering, follow-ups and cancellation on top of this holder.)
 */
import { randomUUID } from 'node:crypto';
import type { Grant } from '../../shared/capability';
import { CapstanError } from '../../shared/errors';
import type { Catalog } from '../catalog/catalog';
import type { Snapshot } from '../catalog/snapshot';
import { CapabilityContext, type AdmissionBudget } from './admission';
import { Grants } from './grants';

export interface Task {
  id: string;
  sessionId: string;
  startedAt: string;
  snapshot: Snapshot;
  grants: Grants;
  context: CapabilityContext;
}

export interface TaskConfig {
  grants: readonly Grant[];
  budget: AdmissionBudget;
}

export class Tasks {
  readonly #tasks = new Map<string, Task>();
  readonly #activeBySession = new Map<string, string>();

  constructor(
    private readonly catalog: Catalog,
    private readonly config: TaskConfig,
  ) {}

  /** Starts a task in the session with a fresh snapshot, grants and context. */
  start(sessionId: string): Task {
    const task: Task = {
      id: `task-${randomUUID()}`,
      sessionId,
      startedAt: new Date().toISOString(),
      snapshot: this.catalog.snapshot(),
      grants: new Grants(this.config.grants),
      context: new CapabilityContext(this.config.budget),
    };
    this.#tasks.set(task.id, task);
    this.#activeBySession.set(sessionId, task.id);
    return task;
  }

  get(taskId: string): Task {
    const task = this.#tasks.get(taskId);
    if (!task) throw new CapstanError('TASK_NOT_FOUND', `TASK_NOT_FOUND: no task "${taskId}"`);
    return task;
  }

  /** The task an operation runs in: the one named, else the session's active one (started if none). */
  resolve({ taskId, sessionId }: { taskId?: string | undefined; sessionId?: string | undefined }): Task {
    if (taskId) {
      const task = this.get(taskId);
      if (sessionId && task.sessionId !== sessionId) throw new CapstanError('TASK_NOT_FOUND', `TASK_NOT_FOUND: task "${taskId}" is not in session "${sessionId}"`);
      return task;
    }
    if (!sessionId) throw new CapstanError('BAD_REQUEST', 'BAD_REQUEST: give the taskId or the sessionId to run in');
    const active = this.#activeBySession.get(sessionId);
    return active ? this.get(active) : this.start(sessionId);
  }
}

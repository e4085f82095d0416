/** The console keeps, per task and per session, the view with the higher version (renderer/features/tasks/taskVersions.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeListing, patchTasks, type SessionView } from '../../renderer/features/tasks/taskVersions';
import type { TasksView, TaskView } from '../../shared/tasks';

const task = (id: string, version: number, overrides: Partial<TaskView> = {}): TaskView => ({
  id,
  version,
  sessionId: 'operator',
  title: `task ${id}`,
  state: 'running',
  createdAt: '2025-01-01T00:00:00.000Z',
  startedAt: '2025-01-01T00:00:00.000Z',
  endedAt: null,
  requiresSuccess: false,
  predecessorId: null,
  finalMessage: null,
  steers: [],
  catalogGeneration: 1,
  callCounts: { ok: 0, error: 0, refused: 0, confirmation_requested: 0, cancelled: 0, outcome_unknown: 0 },
  callsInFlight: 0,
  calls: [],
  context: null,
  handoff: null,
  ...overrides,
});

const session = (id: string, version: number, overrides: Partial<SessionView> = {}): SessionView => ({
  id,
  version,
  activeTaskId: null,
  unknownOutcomes: [],
  conversation: [],
  ...overrides,
});

const listing = (tasks: TaskView[], sessions: SessionView[] = [session('operator', 1)]): TasksView => ({ sessions, tasks });
const find = (view: TasksView, id: string) => view.tasks.find((candidate) => candidate.id === id);

describe('task views keep the higher version', () => {
  it('an older answer that arrives after a newer event does not overwrite it', () => {
    const afterEvent = patchTasks(listing([task('t1', 3)]), { tasks: [task('t1', 7, { state: 'cancelling' })] });
    const afterAnswer = patchTasks(afterEvent, { tasks: [task('t1', 5, { state: 'running' })] });
    expect(find(afterAnswer, 't1')).toMatchObject({ version: 7, state: 'cancelling' });
  });

  it('a newer answer replaces an older event', () => {
    const view = patchTasks(patchTasks(undefined, { tasks: [task('t1', 4)] }), { tasks: [task('t1', 9, { state: 'succeeded' })] });
    expect(find(view, 't1')).toMatchObject({ version: 9, state: 'succeeded' });
  });

  it('sessions follow the same rule', () => {
    const held = listing([], [session('operator', 8, { activeTaskId: 't2' })]);
    expect(patchTasks(held, { sessions: [session('operator', 6, { activeTaskId: 't1' })] }).sessions).toEqual([
      session('operator', 8, { activeTaskId: 't2' }),
    ]);
    expect(patchTasks(held, { sessions: [session('operator', 10)] }).sessions).toEqual([session('operator', 10)]);
  });

  it('a task of a session not yet known lists that session, which any real view of it replaces', () => {
    const view = patchTasks(undefined, { tasks: [task('t1', 2, { sessionId: 'night-shift' })] });
    expect(view.sessions).toEqual([session('night-shift', 0)]);
    expect(patchTasks(view, { sessions: [session('night-shift', 2, { activeTaskId: 't1' })] }).sessions).toEqual([
      session('night-shift', 2, { activeTaskId: 't1' }),
    ]);
  });

  it('views applied in any order end the same: the highest version of each task', () => {
    const views = fc.array(fc.record({ id: fc.constantFrom('t1', 't2', 't3'), version: fc.integer({ min: 1, max: 50 }) }), {
      maxLength: 30,
    });
    fc.assert(
      fc.property(views, (arrivals) => {
        // Distinct versions per task (a version names one change), each arriving alone.
        const unique = [...new Map(arrivals.map((view) => [`${view.id}@${view.version}`, view])).values()];
        let view: TasksView | undefined;
        for (const { id, version } of unique) view = patchTasks(view, { tasks: [task(id, version, { title: `${id} v${version}` })] });
        const highest = new Map<string, number>();
        for (const { id, version } of unique) highest.set(id, Math.max(highest.get(id) ?? 0, version));
        for (const [id, version] of highest) expect(find(view!, id)?.title).toBe(`${id} v${version}`);
        expect(view?.tasks.length ?? 0).toBe(highest.size);
      }),
    );
  });
});

describe('a full listing merged with what events brought', () => {
  it('keeps a task an event created after the listing was taken', () => {
    const held = patchTasks(listing([task('t1', 3)]), { tasks: [task('t2', 12)] });
    const merged = mergeListing(held, listing([task('t1', 3)]), 10);
    expect(merged.tasks.map((view) => view.id)).toEqual(['t1', 't2']);
  });

  it('keeps an event newer than the listing over the listing', () => {
    const held = patchTasks(undefined, { tasks: [task('t1', 12, { state: 'cancelling' })] });
    const merged = mergeListing(held, listing([task('t1', 9, { state: 'running' })]), 10);
    expect(find(merged, 't1')).toMatchObject({ version: 12, state: 'cancelling' });
  });

  it('takes the listing over older held views, and drops held tasks the gateway no longer has', () => {
    // The gateway restarted: its tasks lived in memory, and the ledger went on from where it was.
    const held = listing([task('t1', 3), task('t2', 5, { state: 'succeeded' })]);
    const merged = mergeListing(held, listing([task('t2', 8, { state: 'succeeded', finalMessage: 'done' })], [session('operator', 8)]), 20);
    expect(merged.tasks).toEqual([task('t2', 8, { state: 'succeeded', finalMessage: 'done' })]);
    expect(merged.sessions).toEqual([session('operator', 8)]);
  });

  it('is the listing itself when nothing is held', () => {
    const fresh = listing([task('t1', 1)]);
    expect(mergeListing(undefined, fresh, 1)).toBe(fresh);
  });
});

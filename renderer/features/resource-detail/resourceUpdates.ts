/**
 * The resources the console follows and the updates their servers announced
 * (`resourceUpdated` events, routed here by useLiveUpdates.ts): per resource id, how many and
 * when the last came. Memory only: a follow lasts while its detail is open.
 */
import { create } from 'zustand';
import type { z } from 'zod';
import type { ResourceUpdated } from '../../../shared/resources';

export interface UpdatesOf {
  count: number;
  lastAt: string;
}

interface ResourceUpdatesState {
  updates: Record<string, UpdatesOf>;
  push(event: z.infer<typeof ResourceUpdated>): void;
  forget(id: string): void;
}

export const useResourceUpdates = create<ResourceUpdatesState>((set) => ({
  updates: {},
  push: ({ id, at }) => set(({ updates }) => ({ updates: { ...updates, [id]: { count: (updates[id]?.count ?? 0) + 1, lastAt: at } } })),
  forget: (id) =>
    set(({ updates }) => {
      const { [id]: _gone, ...rest } = updates;
      return { updates: rest };
    }),
}));

/** For the app's one event router. */
export const applyResourceUpdate = (event: z.infer<typeof ResourceUpdated>) => useResourceUpdates.getState().push(event);

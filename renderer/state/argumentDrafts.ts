/**
 * The arguments the operator is composing for each tool, keyed by capability id, outside the
 * tool's panel: choosing another tool and coming back finds the draft as it was left, and other
 * parts of the console can fill a tool's form (Recent executions' Re-run calls setDraft, and
 * the open form, in Form or JSON mode, shows the new values at once).
 *
 * A draft is what the operator typed, not yet checked: it may be invalid for the tool's schema
 * (the form shows why). It is kept in this tab only (sessionStorage, so a reload finds it), and
 * never sent until Execute or Confirm.
 */
import { create } from 'zustand';

export type ArgumentDraft = Readonly<Record<string, unknown>>;

/** One empty draft for every tool without one, so a selector returns the same value each time. */
export const EMPTY_DRAFT: ArgumentDraft = Object.freeze({});

interface ArgumentDraftsState {
  byCapability: ReadonlyMap<string, ArgumentDraft>;
}

/** Drafts outlive a reload of the tab (never the tab itself): sessionStorage, as the token is kept. */
const STORAGE_KEY = 'capstan.drafts';
/** Beyond this much JSON the drafts are not kept across a reload (sessionStorage is small and shared). */
const MAX_STORED = 256 * 1024;

function storedDrafts(): Map<string, ArgumentDraft> {
  try {
    const text = typeof sessionStorage === 'undefined' ? null : sessionStorage.getItem(STORAGE_KEY);
    const parsed: unknown = text ? JSON.parse(text) : null;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return new Map();
    return new Map(Object.entries(parsed as Record<string, unknown>).filter((entry): entry is [string, ArgumentDraft] => typeof entry[1] === 'object' && entry[1] !== null && !Array.isArray(entry[1])));
  } catch {
    return new Map();
  }
}

const useArgumentDrafts = create<ArgumentDraftsState>()(() => ({ byCapability: storedDrafts() }));

if (typeof sessionStorage !== 'undefined') {
  useArgumentDrafts.subscribe(({ byCapability }) => {
    try {
      const text = JSON.stringify(Object.fromEntries(byCapability));
      if (text.length <= MAX_STORED) sessionStorage.setItem(STORAGE_KEY, text);
      else sessionStorage.removeItem(STORAGE_KEY);
    } catch {
      // A draft JSON cannot hold (it came from the form, so this is unlikely) is simply not kept.
    }
  });
}

/** Replaces the draft of one capability (a tool's id, e.g. `builtin/http_check`). */
export function setDraft(capabilityId: string, args: Record<string, unknown>): void {
  useArgumentDrafts.setState((state) => {
    if (state.byCapability.get(capabilityId) === args) return state;
    const next = new Map(state.byCapability);
    next.set(capabilityId, args);
    return { byCapability: next };
  });
}

/** Forgets a capability's draft; its form starts empty again. */
export function clearDraft(capabilityId: string): void {
  useArgumentDrafts.setState((state) => {
    if (!state.byCapability.has(capabilityId)) return state;
    const next = new Map(state.byCapability);
    next.delete(capabilityId);
    return { byCapability: next };
  });
}

export const getDraft = (capabilityId: string): ArgumentDraft => useArgumentDrafts.getState().byCapability.get(capabilityId) ?? EMPTY_DRAFT;

/** The draft of one capability, re-rendering when it is set from anywhere. */
export const useDraft = (capabilityId: string): ArgumentDraft =>
  useArgumentDrafts((state) => state.byCapability.get(capabilityId) ?? EMPTY_DRAFT);

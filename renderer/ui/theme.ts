/**
 * The colour theme: follow the system (the default), or always light, or always dark. The
 * choice is kept in this browser's localStorage (it is a preference of this screen, not of the
 * gateway). The stylesheet reads only the resolved theme, `data-theme` on <html>, so "system"
 * is resolved here and follows the OS as it changes. Applied when this module loads, before
 * React's first paint, so the page does not flash the other theme.
 */
import { useSyncExternalStore } from 'react';

export type ThemeChoice = 'system' | 'light' | 'dark';

const STORAGE_KEY = 'capstan.theme';
const darkQuery = window.matchMedia('(prefers-color-scheme: dark)');
const listeners = new Set<() => void>();

function stored(): ThemeChoice {
  try {
    const value = window.localStorage.getItem(STORAGE_KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    // Storage can be refused (privacy settings): the system theme still applies.
    return 'system';
  }
}

let choice = stored();

function apply(): void {
  const dark = choice === 'dark' || (choice === 'system' && darkQuery.matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

apply();
darkQuery.addEventListener('change', apply);

export function setTheme(next: ThemeChoice): void {
  choice = next;
  try {
    if (next === 'system') window.localStorage.removeItem(STORAGE_KEY);
    else window.localStorage.setItem(STORAGE_KEY, next);
  } catch {
    // Not remembered, but applied for this page.
  }
  apply();
  for (const listener of listeners) listener();
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

export function useTheme(): ThemeChoice {
  return useSyncExternalStore(subscribe, () => choice);
}

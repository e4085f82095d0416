/** A few line icons, drawn inline so the console needs no icon font or extra request. */
const paths = {
  play: 'M8 5.5v13l11-6.5z',
  eye: 'M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12zm10 3a3 3 0 1 0 0-6 3 3 0 0 0 0 6z',
  lock: 'M6 10V8a6 6 0 1 1 12 0v2m-13 0h14v11H5zm7 4v3',
  check: 'M4.5 12.5l5 5 10-11',
  alert: 'M12 3 2 20h20zm0 6v5m0 3v.5',
  copy: 'M9 9h11v11H9zM5 15H4V4h11v1',
  settings:
    'M12 15.5a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7zm7.4-2.1 1.8 1.4-2 3.4-2.1-.8a7.6 7.6 0 0 1-1.8 1l-.3 2.3h-4l-.3-2.3a7.6 7.6 0 0 1-1.8-1l-2.1.8-2-3.4 1.8-1.4a7.7 7.7 0 0 1 0-2.8L2.8 9.2l2-3.4 2.1.8a7.6 7.6 0 0 1 1.8-1L9 3.3h4l.3 2.3a7.6 7.6 0 0 1 1.8 1l2.1-.8 2 3.4-1.8 1.4a7.7 7.7 0 0 1 0 2.8z',
  search: 'M10.5 17a6.5 6.5 0 1 0 0-13 6.5 6.5 0 0 0 0 13zm4.7-1.8L20 20',
  pencil: 'M4 20h4L19 9l-4-4L4 16zm9-13 4 4',
  spinner: 'M12 3a9 9 0 1 0 9 9',
  ban: 'M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM5.6 5.6l12.8 12.8',
  book: 'M5 4h10a4 4 0 0 1 4 4v12H9a4 4 0 0 1-4-4zm0 12a4 4 0 0 1 4-4h10',
  eyeOff: 'M3 3l18 18M10.6 6.1A9.6 9.6 0 0 1 12 6c6.4 0 10 6 10 6a17 17 0 0 1-3.2 3.8M6.6 6.6C3.7 8.3 2 12 2 12s3.6 6 10 6a9.7 9.7 0 0 0 4.4-1',
  close: 'M6 6l12 12M18 6 6 18',
  plug: 'M9 3v5m6-5v5M6 8h12v3a6 6 0 0 1-12 0zm6 9v4',
  unplug: 'M9 3v5m6-5v5M6 8h12v3a6 6 0 0 1-12 0zm6 9v4M3 3l18 18',
  refresh: 'M20 11a8 8 0 1 0-2.3 5.7M20 4v7h-7',
  trash: 'M4 7h16M10 11v6m4-6v6M6 7l1 13h10l1-13M9 7V4h6v3',
  plus: 'M12 5v14M5 12h14',
  inspect: 'M4 5h16M4 10h9M4 15h6m6.5 4a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7zm2.5-1 2.5 2.5',
  clock: 'M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zm0-13v4.5l3 2',
  pause: 'M9 5v14M15 5v14',
  stop: 'M6 6h12v12H6z',
  hourglass: 'M6 3h12M6 21h12M7 3v3a5 5 0 0 0 10 0V3M7 21v-3a5 5 0 0 1 10 0v3',
  forward: 'M4 12h14m-5-6 6 6-6 6',
  list: 'M9 6h11M9 12h11M9 18h11M4 6h.01M4 12h.01M4 18h.01',
  tasks: 'M4 7l2 2 4-4M13 7h7M4 16l2 2 4-4M13 16h7',
  chevronUp: 'M6 15l6-6 6 6',
  chevronDown: 'M6 9l6 6 6-6',
  maximize: 'M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5',
  restore: 'M9 4v5H4M15 4v5h5M9 20v-5H4M15 20v-5h5',
  shield: 'M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6zm-3.5 9 2.5 2.5 4.5-5',
  filter: 'M4 5h16l-6 7v6l-4 2v-8z',
  arrowUp: 'M12 19V5m-6 6 6-6 6 6',
  monitor: 'M3 4h18v12H3zm5 17h8m-4-5v5',
  sun: 'M12 16a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm0-14v2m0 16v2M4.9 4.9l1.4 1.4m11.4 11.4 1.4 1.4M2 12h2m16 0h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4',
  moon: 'M20 14.5A8 8 0 0 1 9.5 4 8 8 0 1 0 20 14.5z',
  download: 'M12 4v11m-5-5 5 5 5-5M5 20h14',
} as const;

export type IconName = keyof typeof paths;

export function Icon({ name, className = '' }: { name: IconName; className?: string }) {
  const filled = name === 'play';
  return (
    <svg
      className={`icon icon--${name} ${className}`}
      viewBox="0 0 24 24"
      width="16"
      height="16"
      aria-hidden="true"
      focusable="false"
      fill={filled ? 'currentColor' : 'none'}
      stroke={filled ? 'none' : 'currentColor'}
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={paths[name]} />
    </svg>
  );
}

/** Capstan's mark: a capstan drum, seen from the side, on the accent colour. */
export function Logo() {
  return (
    <svg className="logo" viewBox="0 0 32 32" width="26" height="26" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="7" fill="var(--accent)" />
      <g fill="none" stroke="var(--accent-contrast)" strokeWidth="2.4" strokeLinecap="round" strokeLinejoin="round">
        <path d="M9 8h14M9 24h14M11.5 8.5 13 16l-1.5 7.5M20.5 8.5 19 16l1.5 7.5M13 16h6" />
      </g>
    </svg>
  );
}

/** JSON exactly as it travels, pretty-printed, in monospace; focusable so it can scroll by keyboard. */
export const formatJson = (value: unknown) => JSON.stringify(value, null, 2) ?? 'undefined';

export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    <pre className="json-block" tabIndex={0} aria-label={label}>
      <code>{formatJson(value)}</code>
    </pre>
  );
}

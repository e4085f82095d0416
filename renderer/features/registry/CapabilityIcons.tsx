/**
 * The icons an MCP server declared for a tool, resource, template or prompt (MCP `icons`), small,
 * beside its name. Only `data:` images: the console's page loads nothing from elsewhere (its
 * Content-Security-Policy allows images from itself and data: URIs), so a URL icon is not fetched.
 * Decorative: the name beside it says what it is.
 */
import type { ToolIcon } from '../../../shared/capability';

export function CapabilityIcons({ icons }: { icons: readonly ToolIcon[] | undefined }) {
  const shown = (icons ?? []).filter((icon) => icon.src.startsWith('data:image/'));
  if (shown.length === 0) return null;
  return (
    <span className="declared-icons">
      {shown.slice(0, 3).map((icon) => (
        <img key={icon.src} className="declared-icon" src={icon.src} alt="" width={16} height={16} />
      ))}
    </span>
  );
}

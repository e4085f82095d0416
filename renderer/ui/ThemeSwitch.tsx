/**
 * The header's theme switch: three buttons in a named group, the chosen one pressed. Icons only,
 * to keep the header on one line; each button's name says which theme it picks.
 */
import { Icon, type IconName } from './Icon';
import { setTheme, useTheme, type ThemeChoice } from './theme';

const options: readonly { value: ThemeChoice; label: string; icon: IconName }[] = [
  { value: 'system', label: 'System theme', icon: 'monitor' },
  { value: 'light', label: 'Light theme', icon: 'sun' },
  { value: 'dark', label: 'Dark theme', icon: 'moon' },
];

export function ThemeSwitch() {
  const theme = useTheme();
  return (
    <div className="segmented theme-switch" role="group" aria-label="Colour theme">
      {options.map(({ value, label, icon }) => (
        <button
          key={value}
          type="button"
          className="segmented__option theme-switch__option"
          aria-pressed={theme === value}
          aria-label={label}
          title={label}
          onClick={() => setTheme(value)}
        >
          <Icon name={icon} />
        </button>
      ))}
    </div>
  );
}

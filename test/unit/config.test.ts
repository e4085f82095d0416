import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../electron/config';
import { defaultDataDir } from '../../electron/paths';

const dirs: string[] = [];
const withConfig = (content: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-config-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'config.json'), content);
  return dir;
};
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('config.json', () => {
  it('is optional, and fills what it leaves out with the defaults', () => {
    const config = readConfig(withConfig('{ "admission": { "budgetTokens": 64000 } }'));
    expect(config.admission).toEqual({ budgetTokens: 64000, baseTokens: 8000, marginTokens: 6400 });
    expect(config.grants).toEqual([
      { pattern: 'builtin:*', authority: 'execute' },
      { pattern: 'skills:*', authority: 'activate' },
    ]);
    expect(config.cancellation).toEqual({ graceMs: 5000 });
    expect(readConfig(mkdtempSync(join(tmpdir(), 'capstan-noconfig-'))).skillsDirs).toEqual([]);
  });

  it.each([
    ['{ not json', /is not valid JSON/],
    ['{ "grants": [{ "pattern": "*", "authority": "root" }] }', /grants\.0\.authority/],
    ['{ "admission": { "budgetTokens": 100, "baseTokens": 60, "marginTokens": 40 } }', /budgetTokens must exceed/],
    ['{ "colour": "blue" }', /colour/],
    ['{ "cancellation": { "graceMs": -1 } }', /cancellation\.graceMs/],
  ])('refuses %s, naming the file and the field', (content, reason) => {
    const dir = withConfig(content);
    expect(() => readConfig(dir)).toThrow(ConfigError);
    expect(() => readConfig(dir)).toThrow(reason);
    expect(() => readConfig(dir)).toThrow(join(dir, 'config.json'));
  });
});

describe('the default data dir', () => {
  it('is the per-user app-data folder of each OS, or CAPSTAN_DATA_DIR', () => {
    expect(defaultDataDir({ CAPSTAN_DATA_DIR: '/srv/capstan' }, 'linux')).toBe('/srv/capstan');
    expect(defaultDataDir({ XDG_CONFIG_HOME: '/home/op/.cfg' }, 'linux')).toBe('/home/op/.cfg/Capstan');
    expect(defaultDataDir({ APPDATA: 'C:\\Users\\op\\AppData\\Roaming' }, 'win32')).toContain('Capstan');
    expect(defaultDataDir({}, 'darwin')).toMatch(/Library\/Application Support\/Capstan$/);
  });
});

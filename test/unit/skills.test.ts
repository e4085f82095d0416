import type { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Catalog } from '../../electron/catalog/catalog';
import { skillParses, skillsProvider } from '../../electron/providers/skills';
import { MAX_FRONTMATTER_BYTES, MAX_FRONTMATTER_NODES, MAX_FRONTMATTER_PROPS, parseSkillFile, readSkillBody } from '../../electron/providers/skills/skillFile';
import type { SkillContract } from '../../shared/capability';
import { aliasBomb, deepSkill, invalidUtf8, loneSurrogate, nestedSkill, skill, skillsDir, type SkillsDir } from '../support/skills';

// The real fs.watch, keeping each watcher so a test can make one fail.
const watchers = vi.hoisted(() => [] as EventEmitter[]);
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const watch = (...args: Parameters<typeof fs.watch>) => {
    const watcher = fs.watch(...args);
    watchers.push(watcher);
    return watcher;
  };
  return { ...fs, watch, default: { ...fs, watch } };
});

const parse = (text: string | Buffer) => parseSkillFile('/skills/x/SKILL.md', Buffer.isBuffer(text) ? text : Buffer.from(text));

describe('SKILL.md parsing', () => {
  it('reads the manifest fields and hashes the exact frontmatter and body bytes', () => {
    const text = skill(
      'name: release-checklist\ndescription: Steps before a release\ntags: [release, ops]\nargument-hint: "<version>"\nallowed-tools: Read Grep',
      '# Release\n1. Tag\n',
    );
    const parsed = parse(text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.skill.contract).toMatchObject({
      name: 'release-checklist',
      title: 'release-checklist',
      description: 'Steps before a release',
      tags: ['release', 'ops'],
      argumentHint: '<version>',
      allowedTools: ['Read', 'Grep'],
      modelDiscoverable: true,
      riskLevel: 'low',
    });
    const body = readSkillBody(Buffer.from(text));
    expect(body?.body).toBe('# Release\n1. Tag\n');
    expect(body?.manifestHash).toBe(parsed.skill.contract.manifestHash);
    expect(body?.bodyHash).toBe(parsed.skill.contract.bodyHash);
    // One changed byte in the body changes only the body hash.
    const edited = readSkillBody(Buffer.from(text.replace('Tag', 'tag')));
    expect(edited?.manifestHash).toBe(parsed.skill.contract.manifestHash);
    expect(edited?.bodyHash).not.toBe(parsed.skill.contract.bodyHash);
  });

  it('accepts id instead of name, CRLF line ends and a BOM, and honours disable-model-invocation', () => {
    const parsed = parse('\ufeff---\r\nid: deploy\r\ndescription: Deploy\r\ndisable-model-invocation: true\r\n---\r\nBody\r\n');
    expect(parsed).toMatchObject({ ok: true, skill: { contract: { name: 'deploy', modelDiscoverable: false } } });
  });

  it.each([
    ['no frontmatter', '# Just markdown\n', 1, /no YAML frontmatter/],
    ['an unclosed frontmatter', '---\nname: x\ndescription: y\n', 1, /no YAML frontmatter/],
    ['bad YAML', '---\nname: x\ndescription: a: b\n---\n', 3, /invalid YAML/],
    ['a missing description', '---\nname: x\n---\n', 2, /"description" is required/],
    ['an empty description', '---\nname: x\ndescription: "  "\n---\n', 3, /"description" must not be empty/],
    ['no name or id', '---\ndescription: y\n---\n', 2, /needs a "name" or an "id"/],
    ['a bad name', '---\ndescription: y\nname: has space\n---\n', 3, /"name" must be 1-128/],
    ['a wrong type', '---\nname: x\ndescription: y\ndisable-model-invocation: "yes"\n---\n', 4, /"disable-model-invocation" must be true or false/],
    ['a wrong tags type', '---\nname: x\ndescription: y\ntags: { a: 1 }\n---\n', 4, /"tags"/],
    ['a list instead of a mapping', '---\n- a\n- b\n---\n', 2, /mapping/],
    ['a duplicate key', '---\nname: x\nname: y\ndescription: z\n---\n', 3, /invalid YAML/],
    // Hostile files: each is a diagnostic with its line, never a throw or a stall.
    ['an alias bomb', aliasBomb('bomb'), 2, /YAML beyond limits: Excessive alias count/],
    ['a lone surrogate escape', loneSurrogate('half'), 3, /"description" is not valid Unicode/],
    ['a lone surrogate key', skill('name: x\ndescription: y\n"\\udc00": z'), 4, /is not valid Unicode/],
    ['bytes that are not UTF-8', invalidUtf8('bad'), 3, /not valid UTF-8/],
    ['a surrogate encoded as UTF-8', Buffer.concat([Buffer.from('---\nname: x\n\ndescription: '), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('\n---\n')]), 4, /not valid UTF-8/],
    ['a frontmatter over the limit', skill(`name: x\ndescription: y\nnotes: "${'n'.repeat(MAX_FRONTMATTER_BYTES)}"`), 2, /frontmatter is \d+ bytes, more than the 8192-byte limit/],
    ['nesting as deep as the size limit allows', skill(`name: x\ndescription: y\ndeep: ${'['.repeat(4000)}${']'.repeat(4000)}`), 4, /deeper than the 32-level limit/],
    ['flow sequences 1000 levels deep', deepSkill('x', 1000, 'flow-seq'), 4, /^the frontmatter nests collections deeper than the 32-level limit for a manifest$/],
    ['flow mappings 1000 levels deep', deepSkill('x', 1000, 'flow-map'), 4, /deeper than the 32-level limit/],
    ['block sequences 1000 levels deep', deepSkill('x', 1000, 'block-seq'), 5, /deeper than the 32-level limit/],
    ['one level past the depth limit', deepSkill('x', 32), 4, /deeper than the 32-level limit/],
    ['more anchors and tags than allowed', skill(`name: x\ndescription: y\nz: ${'!t '.repeat(MAX_FRONTMATTER_PROPS + 1)}v`), 2, /more anchors and tags than the 100-property limit/],
    ['more values than allowed', skill(`name: x\ndescription: y\nz: [${'a,'.repeat(MAX_FRONTMATTER_NODES)}]`), 4, /more values than the 2000-value limit/],
    ['thousands of YAML errors', skill(`name: x\ndescription: y\n${'\t- a\n'.repeat(1500)}`), 4, /^invalid YAML: Tabs are not allowed as indentation$/],
  ])('explains %s with the line', (_case, text, line, reason) => {
    const parsed = parse(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problem.line).toBe(line);
    expect(parsed.problem.reason).toMatch(reason);
  });
});

describe('the frontmatter bounds', () => {
  it('accepts nesting up to the limit, and keeps every hostile frontmatter quick to refuse', () => {
    expect(parse(deepSkill('x', 31)).ok).toBe(true); // the top mapping and 31 levels below it
    expect(parse(nestedSkill('x', 'Deep but legal', { depth: 31 })).ok).toBe(true);
    const hostile = [
      deepSkill('x', 1000, 'flow-seq'),
      deepSkill('x', 1000, 'block-seq'),
      aliasBomb('x'),
      skill(`name: x\ndescription: y\n${'\t- a\n'.repeat(1500)}`),
      skill(`name: x\ndescription: y\nz: ${'&a '.repeat(2500)}v`),
      skill(`name: x\ndescription: y\nz: ${'['.repeat(7000)}`),
    ];
    for (const text of hostile) {
      const started = performance.now();
      expect(parse(text).ok).toBe(false);
      // Loose (a loaded machine): unbounded, these took 0.05-0.2 s each, or overflowed the stack.
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });
});

describe('the skills provider', () => {
  let dirs: SkillsDir[] = [];
  const fresh = () => {
    const dir = skillsDir();
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    dirs.forEach((dir) => dir.cleanup());
    dirs = [];
  });

  it('loads every <name>/SKILL.md of every directory and turns bad ones into diagnostics', async () => {
    const a = fresh();
    const b = fresh();
    a.write('release', skill('name: release\ndescription: Release steps'));
    a.write('broken', '---\nname: broken\n---\n');
    b.write('other-release', skill('name: release\ndescription: Same name elsewhere'));
    b.write('triage', skill('name: triage\ndescription: Triage a ticket\ndisable-model-invocation: true'));
    const catalog = new Catalog();
    await catalog.addProvider(skillsProvider([a.dir, b.dir, '/nonexistent/skills']));

    const skills = catalog.entries().map((e) => e.contract as SkillContract);
    expect(skills.map((s) => [s.id, s.modelDiscoverable])).toEqual([
      ['skills:release', true],
      ['skills:triage', false],
    ]);
    expect(catalog.diagnostics()).toEqual([
      { provider: 'skills', path: `${a.dir}/broken/SKILL.md`, line: 2, capability: 'skills:broken', reason: '"description" is required (a string)' },
      {
        provider: 'skills',
        path: `${b.dir}/other-release/SKILL.md`,
        line: null,
        capability: 'skills:release',
        reason: `duplicate name "release", already defined by ${a.dir}/release/SKILL.md`,
      },
      { provider: 'skills', path: '/nonexistent/skills', line: null, capability: null, reason: 'skills directory does not exist' },
    ]);
    catalog.close();
  });

  it('picks up changes while running: generations grow and diagnostics follow', async () => {
    const dir = fresh();
    dir.write('release', skill('name: release\ndescription: Release steps'));
    const catalog = new Catalog();
    await catalog.addProvider(skillsProvider([dir.dir]));
    const before = { catalog: catalog.generation, binding: catalog.providers()[0]!.bindingGeneration };
    const changed = new Promise((resolve) => catalog.onChange(resolve));

    dir.write('triage', skill('name: triage\ndescription: Triage'));
    await changed;
    await expect.poll(() => catalog.entries().length).toBe(2);
    expect(catalog.generation).toBeGreaterThan(before.catalog);
    expect(catalog.providers()[0]!.bindingGeneration).toBeGreaterThan(before.binding);

    dir.write('bad', '---\n: : :\n---\n');
    await expect.poll(() => catalog.diagnostics().length).toBe(1);
    catalog.close();
  });

  describe('reads only what is safe to read', () => {
    let outside: string;
    afterEach(() => rmSync(outside, { recursive: true, force: true }));

    it('refuses FIFOs, files over the limit and links that leave the folder; follows links within it', async () => {
      const dir = fresh();
      outside = mkdtempSync(join(tmpdir(), 'capstan-outside-'));
      writeFileSync(join(outside, 'SKILL.md'), skill('name: smuggled\ndescription: Text from elsewhere'));
      dir.write('good', skill('name: good\ndescription: Fine'));
      dir.fifo('fifo');
      dir.write('huge', skill('name: huge\ndescription: Too big', 'x'.repeat(300 * 1024)));
      dir.link('escape-folder', outside);
      dir.link('escape-file/SKILL.md', join(outside, 'SKILL.md'));
      dir.link('dangling/SKILL.md', join(dir.dir, 'nowhere.md'));
      mkdirSync(join(dir.dir, 'shared')); // a folder without SKILL.md: not a skill, not a problem
      writeFileSync(join(dir.dir, 'shared', 'alias.md'), skill('name: alias\ndescription: Linked from inside'));
      dir.link('inside-link/SKILL.md', join(dir.dir, 'shared', 'alias.md'));

      const catalog = new Catalog();
      await catalog.addProvider(skillsProvider([dir.dir]));
      expect(catalog.entries().map((e) => e.contract.name)).toEqual(['alias', 'good']);
      const reasons = Object.fromEntries(catalog.diagnostics().map((d) => [d.path, d.reason]));
      expect(reasons).toEqual({
        [`${dir.dir}/fifo/SKILL.md`]: 'is not a regular file (a FIFO); only regular files are read',
        [`${dir.dir}/huge/SKILL.md`]: expect.stringMatching(/^is 30\d{4} bytes, more than the 262144-byte limit \(skills.maxFileBytes in config.json\)$/),
        [`${dir.dir}/escape-folder/SKILL.md`]: expect.stringMatching(/link that leads outside its skills folder/),
        [`${dir.dir}/escape-file/SKILL.md`]: expect.stringMatching(/link that leads outside its skills folder/),
        [`${dir.dir}/dangling/SKILL.md`]: 'is a link to a file that does not exist',
      });
      catalog.close();

      // The limit is the operator's to raise.
      const roomy = new Catalog();
      await roomy.addProvider(skillsProvider([dir.dir], { maxFileBytes: 512 * 1024 }));
      expect(roomy.entries().map((e) => e.contract.name)).toContain('huge');
      roomy.close();
    });

    it('activation reads the file again with the same checks', async () => {
      const dir = fresh();
      outside = mkdtempSync(join(tmpdir(), 'capstan-outside-'));
      const text = skill('name: swap\ndescription: Swapped after loading');
      writeFileSync(join(outside, 'SKILL.md'), text);
      dir.write('swap', text);
      const [source] = (await skillsProvider([dir.dir]).load()).skills;
      await expect(source!.readBody()).resolves.toMatchObject({ body: 'Do the thing.\n' });

      // Same bytes, so the hashes would match: only the checks stand in the way.
      dir.remove('swap');
      dir.link('swap', outside);
      await expect(source!.readBody()).rejects.toMatchObject({ code: 'STALE_CAPABILITY', message: expect.stringMatching(/leads outside/) });
      dir.remove('swap');
      dir.fifo('swap');
      await expect(source!.readBody()).rejects.toMatchObject({ code: 'STALE_CAPABILITY', message: expect.stringMatching(/a FIFO/) });
      dir.remove('swap');
      await expect(source!.readBody()).rejects.toMatchObject({ code: 'STALE_CAPABILITY', message: expect.stringMatching(/was removed/) });
    });
  });

  it('turns a skill edited to become hostile into a diagnostic while the others keep updating', async () => {
    const dir = fresh();
    dir.write('a', skill('name: a\ndescription: First'));
    dir.write('b', skill('name: b\ndescription: Second'));
    const catalog = new Catalog();
    await catalog.addProvider(skillsProvider([dir.dir]));

    dir.write('a', aliasBomb('a'));
    await expect.poll(() => catalog.diagnostics().map((d) => d.path), { timeout: 5_000 }).toEqual([`${dir.dir}/a/SKILL.md`]);
    expect(catalog.entries().map((e) => e.contract.name)).toEqual(['b']);

    dir.write('b', skill('name: b\ndescription: Second, edited'));
    await expect.poll(() => catalog.entries().map((e) => e.contract.description), { timeout: 5_000 }).toEqual(['Second, edited']);
    catalog.close();
  });

  it('loads in the background when asked: the catalog answers at once, says it is loading, and tells when it is done', async () => {
    const dir = fresh();
    for (const name of ['a', 'b', 'c']) dir.write(name, skill(`name: ${name}\ndescription: Skill ${name}`));
    const catalog = new Catalog();
    const told: { reason: string; loading: string[]; skills: number }[] = [];
    catalog.onChange(({ reason }) => told.push({ reason, loading: catalog.loading(), skills: catalog.entries().length }));
    await catalog.addProvider(skillsProvider([dir.dir]), { background: true });
    expect(catalog.loading()).toEqual(['skills']);
    expect(catalog.entries()).toEqual([]);

    await catalog.whenLoaded();
    // Whoever reads the catalog on the `loaded` change finds it complete.
    expect(told).toEqual([{ reason: 'loaded', loading: [], skills: 3 }]);
    expect(catalog.loading()).toEqual([]);
    catalog.close();
  });

  it('keeps the event loop turning while thousands of skills load, though each file is read synchronously', async () => {
    const dir = fresh();
    for (let index = 0; index < 3_000; index++) dir.write(`skill-${index}`, skill(`name: skill-${index}\ndescription: Skill number ${index}`));
    const provider = skillsProvider([dir.dir]);
    let loaded = false;
    let last = performance.now();
    let longestGap = 0;
    const turn = () => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      if (!loaded) setImmediate(turn);
    };
    setImmediate(turn);
    const started = performance.now();
    const contents = await provider.load();
    const took = performance.now() - started;
    // One more turn, which measures the wait since the last.
    await new Promise((resume) => setImmediate(resume));
    loaded = true;
    provider.watch!(() => {})();
    expect(contents.skills).toHaveLength(3_000);
    // Read in slices of a few ms: no wait between two turns comes near the load's length (read in
    // one go, the files alone held the loop for most of it).
    expect(longestGap, `longest wait ${longestGap.toFixed(1)} ms in a load of ${took.toFixed(0)} ms`).toBeLessThan(Math.max(25, took / 4));
  });

  it('follows a skill folder added while running: a later edit of its SKILL.md is seen too', async () => {
    const dir = fresh();
    dir.write('first', skill('name: first\ndescription: First'));
    const catalog = new Catalog();
    await catalog.addProvider(skillsProvider([dir.dir]));
    dir.write('later', skill('name: later\ndescription: Added while running'));
    await expect.poll(() => catalog.entries().map((e) => e.contract.name), { timeout: 5_000 }).toEqual(['first', 'later']);
    // The reload that found it watched its folder before reading it.
    dir.write('later', skill('name: later\ndescription: Edited in place'));
    await expect.poll(() => catalog.entries().find((e) => e.contract.name === 'later')?.contract.description, { timeout: 5_000 }).toBe('Edited in place');
    catalog.close();
  });

  it('parses again only the files whose bytes changed', async () => {
    const dir = fresh();
    const past = new Date(Date.now() - 60_000);
    for (const name of ['a', 'b', 'c']) utimesSync(dir.write(name, skill(`name: ${name}\ndescription: Skill ${name}`)), past, past);
    mkdirSync(join(dir.dir, 'shared'));
    writeFileSync(join(dir.dir, 'shared', 'linked.md'), skill('name: linked\ndescription: Linked'));
    utimesSync(join(dir.dir, 'shared', 'linked.md'), past, past);
    dir.link('linked/SKILL.md', join(dir.dir, 'shared', 'linked.md'));
    const parsed: string[] = [];
    skillParses.listener = (path) => parsed.push(path.slice(dir.dir.length + 1));
    try {
      const provider = skillsProvider([dir.dir]);
      const names = async () => (await provider.load()).skills.map((s) => `${s.contract.name}: ${s.contract.description}`);
      expect(await names()).toEqual(['a: Skill a', 'b: Skill b', 'c: Skill c', 'linked: Linked']);
      expect(parsed.sort()).toEqual(['a/SKILL.md', 'b/SKILL.md', 'c/SKILL.md', 'linked/SKILL.md']);

      parsed.length = 0;
      await names();
      expect(parsed).toEqual([]);
      // Saved again with the same bytes: read, not parsed.
      dir.write('b', skill('name: b\ndescription: Skill b'));
      await names();
      expect(parsed).toEqual([]);
      // Edited: only that file is parsed; so is a link's target in a folder nobody watches.
      dir.write('b', skill('name: b\ndescription: Edited'));
      writeFileSync(join(dir.dir, 'shared', 'linked.md'), skill('name: linked\ndescription: Linked, edited'));
      expect(await names()).toEqual(['a: Skill a', 'b: Edited', 'c: Skill c', 'linked: Linked, edited']);
      expect(parsed.sort()).toEqual(['b/SKILL.md', 'linked/SKILL.md']);
      // A folder removed and one added.
      parsed.length = 0;
      dir.remove('a');
      dir.write('d', skill('name: d\ndescription: Skill d'));
      expect(await names()).toEqual(['b: Edited', 'c: Skill c', 'd: Skill d', 'linked: Linked, edited']);
      expect(parsed).toEqual(['d/SKILL.md']);
    } finally {
      skillParses.listener = null;
    }
  });

  it('reloads a folder that never stops changing at least once a second', async () => {
    const dir = fresh();
    dir.write('busy', skill('name: busy\ndescription: Save 0'));
    const catalog = new Catalog();
    await catalog.addProvider(skillsProvider([dir.dir]));
    const seen: string[] = [];
    catalog.onChange(() => seen.push(catalog.entries()[0]!.contract.description));
    // Saved every 50 ms for 2.5 s: the settling wait alone would never end.
    for (let save = 1; save <= 50; save += 1) {
      dir.write('busy', skill(`name: busy\ndescription: Save ${save}`));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen.length).toBeGreaterThanOrEqual(2);
    await expect.poll(() => catalog.entries()[0]!.contract.description, { timeout: 5_000 }).toBe('Save 50');
    catalog.close();
  });

  it('reports a directory that can no longer be watched', async () => {
    const dir = fresh();
    dir.write('a', skill('name: a\ndescription: First'));
    const catalog = new Catalog();
    const before = watchers.length;
    await catalog.addProvider(skillsProvider([dir.dir]));
    // The directory's own watcher comes first; each skill folder gets one after it.
    await expect.poll(() => watchers.length).toBe(before + 2);

    watchers[before]!.emit('error', new Error('ENOSPC: System limit for number of file watchers reached'));
    await expect.poll(() => catalog.diagnostics(), { timeout: 5_000 }).toEqual([
      {
        provider: 'skills',
        path: dir.dir,
        line: null,
        capability: null,
        reason: 'is no longer watched (ENOSPC: System limit for number of file watchers reached): edits to it show after a restart',
      },
    ]);
    expect(catalog.entries().map((e) => e.contract.name)).toEqual(['a']);
    catalog.close();
  });
});

describe('the catalog', () => {
  it('turns a skill it cannot hash into a diagnostic instead of failing the provider', async () => {
    const good = parseSkillFile('/s/good/SKILL.md', Buffer.from(skill('name: good\ndescription: Fine')));
    const bad = parseSkillFile('/s/bad/SKILL.md', Buffer.from(skill('name: bad\ndescription: Fine')));
    if (!good.ok || !bad.ok) throw new Error('fixtures must parse');
    // A provider that lets a lone surrogate through: canonical JSON cannot hash it.
    const broken = { ...bad.skill, contract: { ...bad.skill.contract, description: 'half \ud800' } };
    const readBody = () => Promise.reject(new Error('not read'));
    const catalog = new Catalog();
    await catalog.addProvider({ name: 'skills', kind: 'skills', load: () => ({ tools: [], skills: [{ ...good.skill, readBody }, { ...broken, readBody }], diagnostics: [] }) });
    expect(catalog.entries().map((e) => e.contract.name)).toEqual(['good']);
    expect(catalog.diagnostics()).toEqual([expect.objectContaining({ path: '/s/bad/SKILL.md', capability: 'skills:bad' })]);
    catalog.close();
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { Catalog } from '../../electron/catalog/catalog';
import { skillsProvider } from '../../electron/providers/skills';
import { parseSkillFile, readSkillBody } from '../../electron/providers/skills/skillFile';
import type { SkillContract } from '../../shared/capability';
import { skill, skillsDir, type SkillsDir } from '../support/skills';

const parse = (text: string) => parseSkillFile('/skills/x/SKILL.md', Buffer.from(text));

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
  ])('explains %s with the line', (_case, text, line, reason) => {
    const parsed = parse(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problem.line).toBe(line);
    expect(parsed.problem.reason).toMatch(reason);
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
});

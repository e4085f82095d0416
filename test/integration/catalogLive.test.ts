/**
 * The operator's catalog over real HTTP as a console follows it: `GET /catalog` with its ETag and
 * 304, catalog events carrying their delta, and search answered a page at a time with its counts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyCatalogDelta } from '../../shared/catalogDelta';
import { CatalogSearchOutput, CatalogView } from '../../shared/discovery';
import { CatalogChanged } from '../../shared/events';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { skill, skillsDir, type SkillsDir } from '../support/skills';

let gw: TestGateway;
let skills: SkillsDir;

beforeAll(async () => {
  skills = skillsDir();
  for (let i = 0; i < 30; i++) {
    skills.write(`note-skill-${String(i).padStart(2, '0')}`, skill(`name: note-skill-${String(i).padStart(2, '0')}\ndescription: Keeps a note about thing ${i}\ntags: [notes]`));
  }
  gw = await startTestGateway({ skillsDirs: [skills.dir] });
  await (gw.host.catalog as { whenLoaded?: () => Promise<void> }).whenLoaded?.();
});
afterAll(async () => {
  await gw.stop();
  skills.cleanup();
});

const readView = async () => {
  const response = await gw.request('/catalog');
  expect(response.status).toBe(200);
  return { tag: response.headers.get('etag')!, view: CatalogView.parse(await response.json()) };
};

/** Opens the event stream and resolves with the first catalog event after `act`. */
async function nextCatalogEvent(act: () => Promise<unknown>): Promise<CatalogChanged> {
  const controller = new AbortController();
  const response = await fetch(`${gw.url}/events`, { headers: { authorization: `Bearer ${gw.token}` }, signal: controller.signal });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  // The stream's opening comment: subscribed, so the change below cannot be missed.
  await reader.read();
  await act();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended');
      buffer += value;
      for (const block of buffer.split('\n\n').slice(0, -1)) {
        const data = /^event: catalog\ndata: (.*)$/m.exec(block)?.[1];
        if (data) return CatalogChanged.parse(JSON.parse(data));
      }
    }
  } finally {
    controller.abort();
  }
}

describe('GET /catalog', () => {
  it('has an ETag; the same tag in If-None-Match gets 304 with no body, until the catalog changes', async () => {
    const { tag } = await readView();
    expect(tag).toMatch(/^".+"$/);
    const unchanged = await gw.request('/catalog', { headers: { 'if-none-match': tag } });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');
    expect(unchanged.headers.get('etag')).toBe(tag);

    await gw.request('/catalog/revoked', { body: { id: 'builtin:todo_list', revoked: true } });
    try {
      const changed = await gw.request('/catalog', { headers: { 'if-none-match': tag } });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(tag);
      expect(CatalogView.parse(await changed.json()).capabilities.find((entry) => entry.contract.id === 'builtin:todo_list')?.revoked).toBe(true);
    } finally {
      await gw.request('/catalog/revoked', { body: { id: 'builtin:todo_list', revoked: false } });
    }
  });

  it('still refuses an agent, with or without If-None-Match', async () => {
    const { tag } = await readView();
    const created = (await (await gw.request('/agents', { body: { name: 'etag-agent' } })).json()) as { token: string };
    const asAgent = await fetch(`${gw.url}/catalog`, { headers: { authorization: `Bearer ${created.token}`, 'if-none-match': tag } });
    expect(asAgent.status).toBe(403);
    expect(((await asAgent.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN_FOR_AGENT');
  });
});

describe('catalog events', () => {
  it('carry the revoked capability alone, and applied to the view held make the view GET /catalog answers, tag included', async () => {
    const before = await readView();
    const event = await nextCatalogEvent(() => gw.request('/catalog/revoked', { body: { id: 'builtin:time_now', revoked: true } }));
    try {
      expect(event).toMatchObject({ reason: 'revoked', provider: 'builtin', catalogGeneration: before.view.catalogGeneration + 1 });
      expect(event.delta!.from).toBe(before.view.catalogGeneration);
      expect(event.delta!.upserted.map((entry) => [entry.contract.id, entry.revoked])).toEqual([['builtin:time_now', true]]);
      expect(event.delta!.removed).toEqual([]);
      const after = await readView();
      expect(applyCatalogDelta(before.view, event.catalogGeneration, event.delta!)).toEqual(after.view);
      expect(event.delta!.tag).toBe(after.tag);
      // Small: the change, not the catalog.
      expect(JSON.stringify(event).length).toBeLessThan(JSON.stringify(after.view).length / 5);
    } finally {
      await gw.request('/catalog/revoked', { body: { id: 'builtin:time_now', revoked: false } });
    }
  });

  it('carry a skill written to a watched folder', async () => {
    const before = await readView();
    const event = await nextCatalogEvent(async () => skills.write('fresh-notes', skill('name: fresh-notes\ndescription: Written while a console watches')));
    expect(event.reason).toBe('changed');
    // The other skills' binding generation moved too; they come from the providers list, not the delta.
    expect(event.delta!.upserted.map((entry) => entry.contract.id)).toEqual(['skills:fresh-notes']);
    const after = await readView();
    expect(applyCatalogDelta(before.view, event.catalogGeneration, event.delta!)).toEqual(after.view);
  });
});

describe('a skills directory that comes and goes', () => {
  it('is followed when it appears after the start, and when it is removed and made again', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'capstan-late-skills-'));
    const dir = join(parent, 'skills');
    const write = (name: string) => {
      mkdirSync(join(dir, name), { recursive: true });
      writeFileSync(join(dir, name, 'SKILL.md'), skill(`name: ${name}\ndescription: Written into a directory the gateway did not see at first`));
    };
    const late = await startTestGateway({ skillsDirs: [dir] });
    try {
      await late.host.catalog.whenLoaded();
      const skillNames = async () => ((await (await late.request('/catalog')).json()) as CatalogView).capabilities.map((entry) => entry.contract.id).filter((id) => id.startsWith('skills:'));
      const diagnosed = async () => JSON.stringify((await (await late.request('/diagnostics')).json()) as unknown);
      expect(await diagnosed()).toContain('skills directory does not exist');
      write('late-arrival');
      await expect.poll(skillNames, { timeout: 10_000 }).toEqual(['skills:late-arrival']);
      expect(await diagnosed()).not.toContain('skills directory does not exist');
      // Replaced whole, as a checkout or a sync tool does: the new directory's skills, not the old one's.
      rmSync(dir, { recursive: true });
      write('second-coming');
      await expect.poll(skillNames, { timeout: 10_000 }).toEqual(['skills:second-coming']);
      // And its folders are watched again: an edit inside it is seen.
      write('third-wave');
      await expect.poll(skillNames, { timeout: 10_000 }).toEqual(['skills:second-coming', 'skills:third-wave']);
    } finally {
      await late.stop();
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe('GET /catalog/search', () => {
  const search = async (query: string) => CatalogSearchOutput.parse(await (await gw.request(`/catalog/search?${query}`)).json());

  it('answers a page of hits with the list length and exact facet counts', async () => {
    const first = await search('query=note&limit=10');
    // 30 note skills and the two builtin note tools.
    expect(first).toMatchObject({ matches: 33, total: 33, offset: 0, facets: { kinds: { tool: 2, skill: 31 } } });
    expect(first.facets.providers).toEqual([
      { provider: 'builtin', count: 2 },
      { provider: 'skills', count: 31 },
    ]);
    expect(first.hits).toHaveLength(10);

    // The pages together are the whole ranking, once each, in order.
    const pages = [first, await search('query=note&limit=10&offset=10'), await search('query=note&limit=10&offset=20'), await search('query=note&limit=10&offset=30')];
    const all = pages.flatMap((page) => page.hits.map((hit) => hit.id));
    expect(new Set(all).size).toBe(33);
    expect(pages[3]!.hits).toHaveLength(3);
    const whole = await search('query=note&limit=100');
    expect(whole.hits.map((hit) => hit.id)).toEqual(all);
  });

  it('filters by kind and provider, counting each facet under the other filters', async () => {
    const skillsOnly = await search('query=note&kind=skill&limit=5');
    expect(skillsOnly.total).toBe(31);
    expect(skillsOnly.hits.every((hit) => hit.id.startsWith('skills:'))).toBe(true);
    // The kind facet ignores the kind filter (every kind counted, MCP servers' resources and prompts too); the provider facet applies it.
    expect(skillsOnly.facets.kinds).toEqual({ tool: 2, skill: 31, resource: 0, resourceTemplate: 0, prompt: 0 });
    expect(skillsOnly.facets.providers).toEqual([{ provider: 'skills', count: 31 }]);

    const builtin = await search('query=note&provider=builtin');
    expect(builtin.hits.map((hit) => hit.id)).toEqual(['builtin:note_add', 'builtin:note_search']);
    expect(builtin.facets.kinds).toEqual({ tool: 2, skill: 0, resource: 0, resourceTemplate: 0, prompt: 0 });

    const confirm = await search('query=http&filter=confirm');
    expect(confirm.hits.map((hit) => hit.id)).toEqual(['builtin:http_check']);

    // A provider no capability has: nothing under it, and the kind facet says so too.
    const none = await search('query=note&provider=nowhere');
    expect(none).toMatchObject({ matches: 33, total: 0, hits: [], facets: { kinds: { tool: 0, skill: 0 } } });
    expect(none.facets.providers).toEqual([
      { provider: 'builtin', count: 2 },
      { provider: 'skills', count: 31 },
    ]);
  });

  it('refuses a page over 500', async () => {
    const response = await gw.request('/catalog/search?query=note&limit=501');
    expect(response.status).toBe(400);
  });
});

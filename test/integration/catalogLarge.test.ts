/**
 * A catalog too large to build as one string: `GET /catalog` with 1,500 skills through the real
 * gateway is written as the socket takes it (chunked, transports/jsonBody.ts), and a client sees
 * the same view as ever: valid JSON in the contract's shape, every capability, its ETag and 304,
 * and HEAD.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogView } from '../../shared/discovery';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { skill, skillsDir, type SkillsDir } from '../support/skills';

const SKILLS = 1_500;
let gw: TestGateway;
let skills: SkillsDir;

beforeAll(async () => {
  skills = skillsDir();
  for (let i = 0; i < SKILLS; i++) skills.write(`bulk-${i}`, skill(`name: bulk-${i}\ndescription: Bulk skill number ${i} — ünïcödé\ntags: [bulk]`));
  gw = await startTestGateway({ skillsDirs: [skills.dir] });
}, 60_000);
afterAll(async () => {
  await gw.stop();
  skills.cleanup();
});

describe('GET /catalog of 1,500 skills', () => {
  it('is written in chunks, and reads as the whole view with its ETag; the tag gets 304, HEAD no body', async () => {
    const response = await gw.request('/catalog');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const tag = response.headers.get('etag')!;
    expect(tag).toBeTruthy();
    const view = CatalogView.parse(await response.json());
    const bulk = view.capabilities.filter((entry) => entry.contract.id.startsWith('skills:bulk-'));
    expect(bulk).toHaveLength(SKILLS);
    expect(bulk.find((entry) => entry.contract.id === 'skills:bulk-1234')?.contract).toMatchObject({ kind: 'skill', description: 'Bulk skill number 1234 — ünïcödé' });
    expect(view.catalogGeneration).toBe(gw.host.catalog.generation);

    const unchanged = await gw.request('/catalog', { headers: { 'if-none-match': tag } });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');

    const head = await gw.request('/catalog', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(tag);
    expect(await head.text()).toBe('');
  });
});

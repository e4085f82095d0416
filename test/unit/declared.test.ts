/**
 * An MCP server's resources, templates and prompts as contracts (electron/catalog/declared.ts):
 * their names per server, a template's variables and which URIs it describes (linear-time
 * matching), bad declarations refused one by one; and their authority ladders in grants.
 */
import { describe, expect, it } from 'vitest';
import {
  DeclaredError,
  MAX_TEMPLATE_EXPRESSIONS,
  promptContract,
  promptName,
  resourceContract,
  resourceName,
  resourceTemplateContract,
  templateMatcher,
  templateVariables,
} from '../../electron/catalog/declared';
import { Grants, authorityFor } from '../../electron/runtime/grants';
import { CapabilityContract, CapabilityId } from '../../shared/capability';

describe('declared contracts', () => {
  it('name a resource by its URI: readable, unique, stable, a valid capability id whatever the URI', () => {
    const name = resourceName('demo://resource/static/document/architecture.md');
    expect(name).toMatch(/^resource\.demo-resource-static-document-architecture\.md-[0-9a-f]{8}$/);
    expect(resourceName('demo://resource/static/document/architecture.md')).toBe(name);
    // Two URIs with one slug still get two names.
    expect(resourceName('file:///a/b')).not.toBe(resourceName('file:///a-b'));
    for (const uri of ['file:///tmp/x y/é.txt', `https://example.com/${'long/'.repeat(100)}`, 'urn:isbn:0451450523', '::::']) {
      expect(CapabilityId.safeParse(`server:${resourceName(uri)}`).success, uri).toBe(true);
    }
    expect(promptName('args-prompt')).toBe('prompt.args-prompt');
    expect(promptName('a prompt with spaces')).toMatch(/^prompt\.a-prompt-with-spaces-[0-9a-f]{8}$/);
  });

  it('keep what the server declared: URI, MIME type, size, icons, _meta, annotations', () => {
    const contract = resourceContract('everything', {
      uri: 'demo://x',
      name: 'x.json',
      title: 'X',
      mimeType: 'application/json',
      size: 12,
      icons: [{ src: 'data:image/png;base64,AA==', mimeType: 'image/png' }],
      _meta: { vendor: 1 },
      annotations: { audience: ['user'] },
    });
    expect(CapabilityContract.parse(contract)).toEqual(contract);
    expect(contract).toMatchObject({ kind: 'resource', id: `everything:${resourceName('demo://x')}`, title: 'X', declaredName: 'x.json', mimeType: 'application/json', size: 12, meta: { vendor: 1 } });
    expect(contract.description).toBe('X (the server gave no description)');
    expect(contract.icons).toHaveLength(1);
    const prompt = promptContract('everything', { name: 'p', arguments: [{ name: 'city', required: true }, { name: 'state' }] });
    expect(prompt.arguments).toEqual([
      { name: 'city', required: true },
      { name: 'state', required: false },
    ]);
  });

  it('refuse a declaration that does not fit, saying which', () => {
    expect(() => resourceContract('s', { name: 'no uri' })).toThrow(DeclaredError);
    expect(() => promptContract('s', { name: 'p', arguments: 'city' })).toThrow(/prompt "p" is invalid: arguments/);
  });

  it('refuse a template of more expressions than a URI template needs, and compile each template once however often a read asks', () => {
    const expressions = (count: number) => Array.from({ length: count }, (_, index) => `{+v${index}}x`).join('');
    expect(resourceTemplateContract('s', { uriTemplate: `t:${expressions(MAX_TEMPLATE_EXPRESSIONS)}`, name: 'many' }).variables).toHaveLength(MAX_TEMPLATE_EXPRESSIONS);
    expect(() => resourceTemplateContract('s', { uriTemplate: `t:${expressions(MAX_TEMPLATE_EXPRESSIONS + 1)}`, name: 'too many' })).toThrow(/resource template "too many" is invalid: uriTemplate has more than 32 expressions/);
    expect(templateMatcher('demo://{x}')).toBe(templateMatcher('demo://{x}'));
  });

  it('read a template: its variables, and the URIs it describes', () => {
    expect(templateVariables('demo://resource/dynamic/text/{resourceId}')).toEqual(['resourceId']);
    expect(templateVariables('file:///{+path}{?q,lang}{#frag}')).toEqual(['path', 'q', 'lang', 'frag']);
    const template = resourceTemplateContract('s', { uriTemplate: 'demo://resource/dynamic/text/{resourceId}', name: 'Dynamic' });
    expect(template.variables).toEqual(['resourceId']);
    const matches = templateMatcher('demo://resource/dynamic/text/{resourceId}');
    expect(matches('demo://resource/dynamic/text/7')).toBe(true);
    expect(matches('demo://resource/dynamic/text/7/more')).toBe(false);
    expect(matches('demo://resource/dynamic/blob/7')).toBe(false);
    expect(templateMatcher('file:///{+path}')('file:///a/b/c.txt')).toBe(true);
    expect(templateMatcher('search://{?q}')('search://?q=x')).toBe(true);
    // Regex characters in the literal part match only themselves.
    expect(templateMatcher('a.b://{x}')('aXb://1')).toBe(false);
    // A hostile template is still linear: a long near-miss answers at once.
    const started = performance.now();
    expect(templateMatcher(`${'{a}'.repeat(50)}!`)('x'.repeat(20_000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('grants of resources and prompts', () => {
  it('stop at read and get, and a kind-bound grant reaches only its kind', () => {
    expect(authorityFor('resource', 'execute')).toBe('read');
    expect(authorityFor('resourceTemplate', 'execute')).toBe('read');
    expect(authorityFor('prompt', 'execute')).toBe('get');
    const agent = new Grants([
      { pattern: 'everything:*', authority: 'execute', kind: 'tool' },
      { pattern: 'everything:prompt.*', authority: 'get' },
    ]);
    expect(agent.held('everything:echo', 'tool')).toBe('execute');
    expect(agent.held('everything:resource.x-00000000', 'resource')).toBe('none');
    expect(agent.held('everything:prompt.args-prompt', 'prompt')).toBe('get');
    expect(() => agent.require('everything:resource.x-00000000', 'resource', 'read')).toThrow(expect.objectContaining({ code: 'NOT_GRANTED', details: { held: 'none', needed: 'read' } }));
    // A reduction bound to a kind lowers only that kind.
    agent.reduce({ pattern: 'everything:prompt.*', authority: 'discover', kind: 'prompt' });
    expect(agent.held('everything:prompt.args-prompt', 'prompt')).toBe('discover');
    expect(agent.held('everything:echo', 'tool')).toBe('execute');
  });
});

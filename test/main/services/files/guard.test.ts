// Which texts count as lbdesk workspaces: the quick look at the first line must accept only what
// the parse would, and anything it does not settle goes on to the parse.
import { describe, expect, it } from 'vitest';
import { checkWorkspaceText } from '../../../../main/services/files/guard';

const isWorkspace = (text: string) => {
  try {
    checkWorkspaceText(text, '/w.yaml');
    return true;
  } catch (e) {
    expect((e as Error).message).toBe('/w.yaml is not an lbdesk workspace: it has no top-level "lbdesk:" format key (add "lbdesk: 1" to open it)');
    return false;
  }
};

describe('checkWorkspaceText', () => {
  it('accepts workspaces as lbdesk and people write them', () => {
    for (const text of [
      'lbdesk: 1\nname: a\n',
      '\uFEFF# a site\n\n  # indented comment\nlbdesk: 1\r\nname: a\r\n',
      '%YAML 1.2\n---\nlbdesk: 1\n',
      '--- # the site\nlbdesk:\n  1\n',
      'name: a\nlbdesk: 1\n', // not first: the parse settles it
      '{ lbdesk: 1, name: a }\n',
      '"lbdesk": 1\n',
      'lbdesk: 1\n  broken: [\n', // being repaired: an unindented format key
    ]) expect(isWorkspace(text), JSON.stringify(text)).toBe(true);
  });

  it('refuses YAML that only looks like one on some line', () => {
    for (const text of [
      'on: push\njobs:\n  lbdesk:\n    runs-on: x\n',
      '--- |\nlbdesk: 1\n', // a block scalar at the root
      '--- >\nlbdesk: 1\n',
      'lbdeskx: 1\n',
      'lbdesk:x\n', // one plain scalar, not a key
      '- lbdesk: 1\n',
      'a: 1\n---\nlbdesk: 1\n', // the second document
      '"a\nlbdesk: 1"\n', // inside a quoted root scalar
      '',
    ]) expect(isWorkspace(text), JSON.stringify(text)).toBe(false);
  });
});

// A second launch hands its workspace file to the first instance: finding that file on the
// second instance's command line, as Electron delivers it (with Chromium's switches mixed in).
import { describe, expect, it } from 'vitest';
import { workspaceArgument } from '../../../main/app/single-instance';

describe('workspace file on a command line', () => {
  it('takes a relative file against the launch folder', () => {
    expect(workspaceArgument(['/opt/lbdesk/lbdesk-desktop', 'site.yaml'], '/home/me/sites')).toBe('/home/me/sites/site.yaml');
  });

  it('skips Chromium switches and the app folder in development', () => {
    const argv = ['/x/electron', '/work/main', '--allow-file-access-from-files', '--original-process-start-time=1', '../other/b.YML'];
    expect(workspaceArgument(argv, '/home/me/sites')).toBe('/home/me/other/b.YML');
  });

  it('takes the last of several, and file:// URLs from desktops', () => {
    expect(workspaceArgument(['app', '/a/one.yaml', '/a/two.yaml'], '/')).toBe('/a/two.yaml');
    expect(workspaceArgument(['app', 'file:///home/me/My%20Site.yaml'], '/')).toBe('/home/me/My Site.yaml');
  });

  it('ignores anything that is not a workspace', () => {
    expect(workspaceArgument(['app'], '/')).toBeUndefined();
    expect(workspaceArgument(['app', '/etc/passwd', '--inspect', 'notes.txt', '/x.yaml\0.txt'], '/')).toBeUndefined();
    expect(workspaceArgument(['app', '--file=/a/b.yaml'], '/')).toBeUndefined();
  });

  it('takes a file after -- even when it looks like a switch', () => {
    expect(workspaceArgument(['app', '--', '-odd.yaml'], '/w')).toBe('/w/-odd.yaml');
  });
});

import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  appWindowArguments,
  browserCandidates,
  findBrowser,
  hasDisplay,
  profileInUse,
} from './browser.ts';

describe('browserCandidates', () => {
  it('prefers Edge on Windows, then Chrome, Brave, Chromium, under every program folder', () => {
    const candidates = browserCandidates('win32', {
      ProgramFiles: 'C:\\Program Files',
      'ProgramFiles(x86)': 'C:\\Program Files (x86)',
      LOCALAPPDATA: 'C:\\Users\\li\\AppData\\Local',
    });
    expect(candidates.slice(0, 4)).toEqual([
      'C:\\Program Files\\Microsoft\\Edge\\Application\\msedge.exe',
      'C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe',
      'C:\\Users\\li\\AppData\\Local\\Microsoft\\Edge\\Application\\msedge.exe',
      'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
    ]);
    expect(candidates).toContain(
      'C:\\Users\\li\\AppData\\Local\\BraveSoftware\\Brave-Browser\\Application\\brave.exe',
    );
  });

  it('looks in /Applications and ~/Applications on macOS, and on PATH on Linux', () => {
    expect(browserCandidates('darwin', { HOME: '/Users/li' }).slice(0, 2)).toEqual([
      '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
      '/Users/li/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    ]);
    const linux = browserCandidates('linux', { PATH: '/usr/local/bin:/usr/bin' });
    expect(linux.slice(0, 3)).toEqual([
      '/usr/local/bin/chromium',
      '/usr/bin/chromium',
      '/snap/bin/chromium',
    ]);
    expect(linux).toContain('/usr/bin/microsoft-edge');
    expect(
      browserCandidates('linux', { PATH: '/usr/bin', CLASS_ASSISTANT_BROWSER: '/opt/b/brave' })[0],
    ).toBe('/opt/b/brave');
  });

  it('takes the first browser that is installed', async () => {
    const found = await findBrowser(
      'linux',
      { PATH: '/usr/bin' },
      async (path) => path === '/usr/bin/google-chrome',
    );
    expect(found).toBe('/usr/bin/google-chrome');
    expect(await findBrowser('linux', { PATH: '/usr/bin' }, async () => false)).toBeUndefined();
  });
});

describe('the app window', () => {
  it('needs a display on Linux only', () => {
    expect(hasDisplay('linux', {})).toBe(false);
    expect(hasDisplay('linux', { DISPLAY: ':0' })).toBe(true);
    expect(hasDisplay('linux', { WAYLAND_DISPLAY: 'wayland-0' })).toBe(true);
    expect(hasDisplay('win32', {})).toBe(true);
    expect(hasDisplay('darwin', {})).toBe(true);
  });

  it('opens an app window with its own profile, sound allowed and no throttling', () => {
    expect(
      appWindowArguments({
        url: 'http://127.0.0.1:8765/',
        profileDir: '/d/browser-profile',
        width: 320,
        height: 80,
      }),
    ).toEqual([
      '--app=http://127.0.0.1:8765/',
      '--user-data-dir=/d/browser-profile',
      '--window-size=320,116',
      '--no-first-run',
      '--no-default-browser-check',
      '--autoplay-policy=no-user-gesture-required',
      '--disable-background-timer-throttling',
      '--disable-backgrounding-occluded-windows',
      '--disable-renderer-backgrounding',
      '--disable-features=Translate',
      '--class=ClassAssistant',
    ]);
  });

  it('knows a profile is in use from Chromium’s lock', async () => {
    const io = (target: string | undefined, alive: boolean, held = false) => ({
      readLink: async () => target,
      isAlive: () => alive,
      lockHeld: async () => held,
    });
    expect(await profileInUse('linux', '/p', io(`${hostname()}-4242`, true))).toBe(true);
    expect(await profileInUse('linux', '/p', io(`${hostname()}-4242`, false))).toBe(false);
    expect(await profileInUse('linux', '/p', io('other-host-4242', true))).toBe(false);
    expect(await profileInUse('darwin', '/p', io(undefined, true))).toBe(false);
    expect(await profileInUse('win32', 'C:\\p', io(undefined, false, true))).toBe(true);
  });
});

// The app window: an installed Chromium-family browser (Chromium, Chrome, Edge, Brave, Vivaldi)
// opened with --app, so it has no tabs or address bar, and with a profile of its own, so it is its
// own process (the launcher sees the window close) and remembers notification permission and
// preferences.
import { hostname } from 'node:os';
import { delimiter, join, win32 } from 'node:path';

/** Environment variables the browser search reads. */
export type Environment = Readonly<Record<string, string | undefined>>;

const LINUX_NAMES = [
  'chromium',
  'chromium-browser',
  'google-chrome',
  'google-chrome-stable',
  'microsoft-edge',
  'microsoft-edge-stable',
  'brave-browser',
  'vivaldi-stable',
];

const MAC_APPS = [
  'Google Chrome.app/Contents/MacOS/Google Chrome',
  'Chromium.app/Contents/MacOS/Chromium',
  'Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
  'Brave Browser.app/Contents/MacOS/Brave Browser',
  'Vivaldi.app/Contents/MacOS/Vivaldi',
];

const WINDOWS_PATHS = [
  // Edge ships with Windows 10 and 11, so it is nearly always there.
  ['Microsoft', 'Edge', 'Application', 'msedge.exe'],
  ['Google', 'Chrome', 'Application', 'chrome.exe'],
  ['BraveSoftware', 'Brave-Browser', 'Application', 'brave.exe'],
  ['Chromium', 'Application', 'chrome.exe'],
  ['Vivaldi', 'Application', 'vivaldi.exe'],
];

/**
 * Where to look for a browser, in order of preference. `CLASS_ASSISTANT_BROWSER` comes first.
 *
 * @example
 * browserCandidates('win32', { ProgramFiles: 'C:\\Program Files' })[0]; // 'C:\\Program Files\\Microsoft\\Edge\\Application\\msedge.exe'
 */
export function browserCandidates(platform: NodeJS.Platform, environment: Environment): string[] {
  const chosen = environment.CLASS_ASSISTANT_BROWSER?.trim();
  const candidates: string[] = chosen ? [chosen] : [];
  if (platform === 'win32') {
    const roots = [
      environment.ProgramFiles,
      environment['ProgramFiles(x86)'],
      environment.LOCALAPPDATA,
    ].filter((root): root is string => Boolean(root));
    for (const parts of WINDOWS_PATHS) {
      for (const root of roots) candidates.push(win32.join(root, ...parts));
    }
    return candidates;
  }
  if (platform === 'darwin') {
    const home = environment.HOME;
    for (const app of MAC_APPS) {
      candidates.push(join('/Applications', app));
      if (home) candidates.push(join(home, 'Applications', app));
    }
    return candidates;
  }
  const folders = (environment.PATH ?? '').split(delimiter).filter((folder) => folder !== '');
  for (const name of LINUX_NAMES) {
    for (const folder of [...folders, '/snap/bin']) candidates.push(join(folder, name));
  }
  return [...new Set(candidates)];
}

/** The first candidate that exists and can be run. */
export async function findBrowser(
  platform: NodeJS.Platform,
  environment: Environment,
  isExecutable: (path: string) => Promise<boolean>,
): Promise<string | undefined> {
  for (const candidate of browserCandidates(platform, environment)) {
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The command that opens `url` in a Mac's default browser (Safari, or whichever the student
 * chose), for a Mac without a Chromium-family browser: macOS's `open`.
 */
export function macDefaultBrowserCommand(url: string): { file: string; args: string[] } {
  return { file: '/usr/bin/open', args: [url] };
}

/** True when a window can be shown: always on Windows and macOS; on Linux, with X11 or Wayland. */
export function hasDisplay(platform: NodeJS.Platform, environment: Environment): boolean {
  if (platform === 'win32' || platform === 'darwin') return true;
  return Boolean(environment.DISPLAY?.trim() || environment.WAYLAND_DISPLAY?.trim());
}

/** Options of {@link appWindowArguments}. */
export interface AppWindowOptions {
  url: string;
  profileDir: string;
  /** The page size wanted; the frame is added by the page itself once loaded. */
  width: number;
  height: number;
}

/** The browser's command line for the app window. */
export function appWindowArguments(options: AppWindowOptions): string[] {
  return [
    `--app=${options.url}`,
    `--user-data-dir=${options.profileDir}`,
    // A first guess of the frame; the page corrects the size with resizeTo once it knows.
    `--window-size=${options.width},${options.height + 36}`,
    '--no-first-run',
    '--no-default-browser-check',
    // Alerts must ring without a click first, and keep working behind other windows.
    '--autoplay-policy=no-user-gesture-required',
    '--disable-background-timer-throttling',
    '--disable-backgrounding-occluded-windows',
    '--disable-renderer-backgrounding',
    // A translate bubble over an 80-pixel window would hide it.
    '--disable-features=Translate',
    '--class=ClassAssistant',
  ];
}

/**
 * Whether a browser still runs with this profile. Chromium keeps `SingletonLock` (a link to
 * `host-pid`) in the profile on Linux and macOS, and holds `lockfile` open on Windows.
 */
export async function profileInUse(
  platform: NodeJS.Platform,
  profileDir: string,
  io: {
    readLink(path: string): Promise<string | undefined>;
    isAlive(pid: number): boolean;
    /** Windows: tries to delete the lock; true when it is held (EBUSY/EPERM). */
    lockHeld(path: string): Promise<boolean>;
  },
): Promise<boolean> {
  if (platform === 'win32') return io.lockHeld(join(profileDir, 'lockfile'));
  const target = await io.readLink(join(profileDir, 'SingletonLock'));
  if (!target) return false;
  const separator = target.lastIndexOf('-');
  const host = target.slice(0, separator);
  const pid = Number(target.slice(separator + 1));
  if (!Number.isInteger(pid) || pid <= 0) return false;
  return host === hostname() && io.isAlive(pid);
}

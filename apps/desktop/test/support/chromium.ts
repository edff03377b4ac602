// How the tests and the benchmark run Chromium: Debian's, never a downloaded one, quiet and
// without a sandbox (containers), GPU off (no display).

/** Debian's Chromium. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Its flags for tests and benchmarks. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-gpu',
];

import type { KnipConfig } from 'knip';

// `pnpm deadcode`: files nothing reaches, exports and types no other file imports (tests
// included), dependencies nobody uses and imports nobody lists. A package's public entry points
// (package.json exports and bins) count as used; what they re-export is the published API.
// Knip's plugins add the entry points each tool knows: vitest's tests and configs, tsup's
// entries, vite's index.html, biome, changesets, turbo.
const config: KnipConfig = {
  // A stale entry or ignore below (a pattern that matches nothing) fails the run too.
  treatConfigHintsAsErrors: true,
  // Tests create named pipes with the system's `mkfifo` (coreutils), not a package's binary,
  // and run a private PulseAudio (`pulseaudio`, `paplay`: Debian packages) for the computer sound.
  ignoreBinaries: ['mkfifo', 'pulseaudio', 'paplay'],
  workspaces: {
    '.': {
      // Repo-wide scripts run by `node scripts/….ts` from package.json scripts and .ci/run.
      entry: ['scripts/*.ts'],
      // copy-libvosk.ts resolves `vosk` from the libvosk package it runs in (its cwd), which
      // lists it; the root does not depend on it.
      ignoreDependencies: ['vosk'],
    },
    // Loaded by URL or run by `node`, not imported: benches, examples, and the helpers tests
    // start as child processes.
    'packages/agent-std': {
      entry: ['bench/*.ts', 'examples/*.mts', 'test/helpers/*.ts'],
    },
    'packages/asr-protocol': {
      entry: ['bench/*.ts', 'examples/*.mts'],
    },
    'packages/transcript-core': {
      entry: ['bench/*.ts', 'examples/*.mts', 'test/helpers/*.ts'],
    },
    'packages/server': {
      entry: ['bench/*.ts', 'examples/*.mts', 'test/support/module-log.ts'],
      // Found at run time (native.ts packageRoot('vosk')): a development checkout takes libvosk
      // from the `vosk` package when the per-platform package is absent.
      ignoreDependencies: ['vosk'],
    },
    'packages/libvosk-*': {
      // `build`/`prepack` copy the libraries out of `vosk` (scripts/copy-libvosk.ts).
      ignoreDependencies: ['vosk'],
    },
    'apps/desktop': {
      // The release build bundles these two by path (src/release/build-release.ts).
      entry: [
        'scripts/*.ts',
        'bench/*.ts',
        'src/release/backend-prelude.ts',
        'src/release/launcher-entry.ts',
      ],
    },
  },
};

export default config;

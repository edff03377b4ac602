import packageJson from '../package.json' with { type: 'json' };

/** This package's version. */
export const SERVER_VERSION: string = packageJson.version;

/** The desktop client version whose API this backend serves unchanged. */
export const COMPATIBLE_CLIENT_VERSION = '1.2.0';

// Defined by the desktop release build (esbuild `define`): the app version this bundle ships in.
declare const __CLASS_ASSISTANT_APP_VERSION__: string | undefined;

/**
 * The desktop app version a release bundle of the backend was built for, or undefined when run
 * from this package (the launcher then says it with CLASS_ASSISTANT_APP_VERSION).
 */
export const BUNDLED_APP_VERSION: string | undefined =
  typeof __CLASS_ASSISTANT_APP_VERSION__ === 'string' ? __CLASS_ASSISTANT_APP_VERSION__ : undefined;

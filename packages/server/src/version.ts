import packageJson from '../package.json' with { type: 'json' };

/** This package's version. */
export const SERVER_VERSION: string = packageJson.version;

/** The desktop client version whose API this backend serves unchanged. */
export const COMPATIBLE_CLIENT_VERSION = '1.2.0';

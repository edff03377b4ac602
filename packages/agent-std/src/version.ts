import packageJson from '../package.json' with { type: 'json' };

/** This package's version, as published. */
export const VERSION: string = packageJson.version;

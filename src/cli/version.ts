import manifest from '../../package.json';

/** The package version, bundled in at build time. */
export const version: string = manifest.version;

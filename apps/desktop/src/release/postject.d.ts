// postject ships no types; this is the part of its API the release build uses.
declare module 'postject' {
  /** Injects `resourceData` as the resource `resourceName` into the executable `filename`. */
  export function inject(
    filename: string,
    resourceName: string,
    resourceData: Buffer,
    options?: { sentinelFuse?: string; machoSegmentName?: string; overwrite?: boolean },
  ): Promise<void>;
}

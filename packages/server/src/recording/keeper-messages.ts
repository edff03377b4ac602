/** What the audio keeper and its worker thread say to each other. */

/** To the worker, in order. */
export type KeeperRequest =
  | {
      type: 'open';
      /** The class's audio file: a new one, or one to go on with. */
      path: string;
      pageMs?: number;
      syncMs?: number;
    }
  | { type: 'audio'; samples: Int16Array }
  | { type: 'close' };

/** From the worker. */
export type KeeperReply =
  | { type: 'ready'; resumedMs: number; bytes: number }
  | { type: 'written'; bytes: number; durationMs: number }
  | { type: 'closed'; bytes: number; durationMs: number }
  | { type: 'failed'; message: string };

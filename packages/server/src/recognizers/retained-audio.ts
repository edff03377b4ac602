/**
 * Audio kept for resending: a recognizer that streams to an online service keeps the audio from
 * the end of the last final sentence on (what the service has heard but not finalised), so that
 * after a dropped connection it can send it again — nothing lost, nothing written twice.
 */

/** Audio on the class clock, from `start` (a sample index at 16 kHz) on. */
export class RetainedAudio {
  #chunks: Array<{ start: number; samples: Int16Array }> = [];
  #start = 0;
  #end = 0;

  get start(): number {
    return this.#start;
  }

  get end(): number {
    return this.#end;
  }

  /**
   * Appends samples starting at `start`. Within 10 ms of the end it continues the audio (a
   * resampled file's clock wanders by a sample); a larger gap (a pause) restarts the buffer.
   */
  append(start: number, samples: Int16Array): void {
    let at = start;
    if (this.#chunks.length > 0 && Math.abs(start - this.#end) <= 160) at = this.#end;
    else if (this.#chunks.length === 0 || start !== this.#end) {
      this.#chunks = [];
      this.#start = start;
    }
    this.#chunks.push({ start: at, samples });
    this.#end = at + samples.length;
  }

  /** Forgets audio before `sample`. */
  dropBefore(sample: number): void {
    while (this.#chunks.length > 0) {
      const first = this.#chunks[0]!;
      const firstEnd = first.start + first.samples.length;
      if (firstEnd <= sample) {
        this.#chunks.shift();
        continue;
      }
      if (first.start < sample) {
        this.#chunks[0] = { start: sample, samples: first.samples.subarray(sample - first.start) };
      }
      break;
    }
    this.#start = this.#chunks.length > 0 ? this.#chunks[0]!.start : this.#end;
  }

  /** A copy of samples [from, to). */
  read(from: number, to: number): Int16Array {
    const out = new Int16Array(Math.max(0, to - from));
    for (const chunk of this.#chunks) {
      const chunkEnd = chunk.start + chunk.samples.length;
      if (chunkEnd <= from || chunk.start >= to) continue;
      const begin = Math.max(from, chunk.start);
      const finish = Math.min(to, chunkEnd);
      out.set(chunk.samples.subarray(begin - chunk.start, finish - chunk.start), begin - from);
    }
    return out;
  }

  clear(): void {
    this.#chunks = [];
    this.#start = this.#end;
  }
}

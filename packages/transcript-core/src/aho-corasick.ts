// Aho–Corasick automaton over integer symbols (code points, pinyin syllable ids). Searching a
// text costs O(text length + number of matches), whatever the number of patterns.

/** Multi-pattern matcher; patterns are arrays of non-negative integers. */
export class AhoCorasick {
  readonly #next: Array<Map<number, number>> = [new Map()];
  readonly #fail: number[] = [0];
  // Patterns ending exactly at each node, and the nearest node on the failure chain that has
  // any (so reporting matches never walks nodes without output).
  readonly #outputs: number[][] = [[]];
  readonly #outputLink: number[] = [-1];
  readonly #lengths: number[] = [];

  constructor(patterns: readonly (readonly number[])[]) {
    patterns.forEach((pattern, id) => {
      this.#lengths.push(pattern.length);
      if (pattern.length === 0) return;
      let node = 0;
      for (const symbol of pattern) {
        let child = this.#next[node]!.get(symbol);
        if (child === undefined) {
          child = this.#next.length;
          this.#next.push(new Map());
          this.#fail.push(0);
          this.#outputs.push([]);
          this.#outputLink.push(-1);
          this.#next[node]!.set(symbol, child);
        }
        node = child;
      }
      this.#outputs[node]!.push(id);
    });
    // Breadth-first: a node's failure target is shallower, so it is final when needed.
    const queue: number[] = [...this.#next[0]!.values()];
    for (let head = 0; head < queue.length; head += 1) {
      const node = queue[head]!;
      for (const [symbol, child] of this.#next[node]!) {
        let fallback = this.#fail[node]!;
        while (fallback !== 0 && !this.#next[fallback]!.has(symbol))
          fallback = this.#fail[fallback]!;
        const target = this.#next[fallback]!.get(symbol);
        this.#fail[child] = target !== undefined && target !== child ? target : 0;
        const failTarget = this.#fail[child]!;
        this.#outputLink[child] =
          this.#outputs[failTarget]!.length > 0 ? failTarget : this.#outputLink[failTarget]!;
        queue.push(child);
      }
    }
  }

  /** Length of pattern `id`. */
  patternLength(id: number): number {
    return this.#lengths[id]!;
  }

  /** Calls `onMatch(patternId, endIndex)` for every occurrence (endIndex inclusive). */
  search(text: readonly number[], onMatch: (patternId: number, endIndex: number) => void): void {
    let node = 0;
    for (let index = 0; index < text.length; index += 1) {
      const symbol = text[index]!;
      let target = this.#next[node]!.get(symbol);
      while (target === undefined && node !== 0) {
        node = this.#fail[node]!;
        target = this.#next[node]!.get(symbol);
      }
      node = target ?? 0;
      for (let output = node; output !== -1; output = this.#outputLink[output]!) {
        for (const id of this.#outputs[output]!) onMatch(id, index);
      }
    }
  }
}

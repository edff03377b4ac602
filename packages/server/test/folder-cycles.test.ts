// The server's folders depend on each other in one direction only: a folder that imports another
// never gets imported back by it, through any chain. A cycle between folders means one of them
// has grown a back edge (a type in the wrong place, a route importing the composition root).
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SOURCE = fileURLToPath(new URL('../src/', import.meta.url));
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s+['"](\.[^'"]+)['"]/g;

/** The folder a source file belongs to; a file at the top of src/ is its own node. */
function nodeOf(file: string): string {
  const parts = relative(SOURCE, file).split(sep);
  return parts.length > 1 ? `${parts[0]}/` : (parts[0] ?? file);
}

async function sourceFiles(folder: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...(await sourceFiles(path)));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

/** Edges between folders, each with one file that makes it. */
async function folderGraph(): Promise<Map<string, Map<string, string>>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of await sourceFiles(SOURCE)) {
    const text = await readFile(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const target = normalize(join(dirname(file), match[1] ?? ''));
      const from = nodeOf(file);
      const to = nodeOf(target);
      if (from === to) continue;
      const edges = graph.get(from) ?? new Map<string, string>();
      if (!edges.has(to)) edges.set(to, relative(SOURCE, file));
      graph.set(from, edges);
    }
  }
  return graph;
}

/** Every cycle of the graph as a path `a → b → … → a` (one per strongly connected part). */
function cycles(graph: Map<string, Map<string, string>>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const visit = (node: string, path: string[]): void => {
    const at = path.indexOf(node);
    if (at >= 0) {
      const loop = [...path.slice(at), node];
      found.push(
        loop
          .map((step, index) =>
            index === loop.length - 1
              ? step
              : `${step} (${graph.get(step)?.get(loop[index + 1] ?? '')})`,
          )
          .join(' → '),
      );
      return;
    }
    if (done.has(node)) return;
    for (const next of graph.get(node)?.keys() ?? []) visit(next, [...path, node]);
    done.add(node);
  };
  for (const node of graph.keys()) visit(node, []);
  return found;
}

describe('the server’s folders', () => {
  it('import each other in one direction only', async () => {
    const graph = await folderGraph();
    // The scan sees the real imports: the routes reach the services, the recognizers the audio.
    expect(graph.get('routes/')?.has('app-services.ts')).toBe(true);
    expect(graph.get('recognizers/')?.has('audio/')).toBe(true);
    expect(cycles(graph)).toEqual([]);
  });
});

// One measurement in a fresh process, so peak memory belongs to this parse alone:
//   node bench/parse-once.ts <file> <mode>
// mode: read (only read the bytes: the process baseline), unzip (jszip inflates every entry),
// pdf-open (PDF.js opens the document and every page, no text), extract (our extraction).
import { readFile } from 'node:fs/promises';
import JSZip from 'jszip';
import { getDocumentProxy } from 'unpdf';
import { extractMaterial } from '../src/material/extract-material.ts';

const [file, mode] = process.argv.slice(2) as [string, string];
const bytes = new Uint8Array(await readFile(file));
const start = performance.now();
let characters = 0;
if (mode === 'unzip') {
  const zip = await JSZip.loadAsync(bytes);
  for (const entry of Object.values(zip.files))
    characters += (await entry.async('uint8array')).length;
} else if (mode === 'pdf-open') {
  const document = await getDocumentProxy(new Uint8Array(bytes));
  for (let page = 1; page <= document.numPages; page++) await document.getPage(page);
  characters = document.numPages;
} else if (mode === 'extract') {
  characters = (await extractMaterial(file, bytes)).text.length;
}
const ms = performance.now() - start;
process.stdout.write(
  JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024, characters }),
);

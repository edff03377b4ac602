import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planMp4 } from './mp4-layout.ts';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mp4-layout-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** An ISO BMFF box: 32-bit size, type, body. */
function box(type: string, ...body: Uint8Array[]): Uint8Array {
  const length = 8 + body.reduce((sum, part) => sum + part.length, 0);
  const out = new Uint8Array(length);
  new DataView(out.buffer).setUint32(0, length);
  out.set(new TextEncoder().encode(type), 4);
  let at = 8;
  for (const part of body) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A full box body (version/flags 0) of 32-bit words. */
function words(...values: number[]): Uint8Array {
  const out = new Uint8Array(4 + values.length * 4);
  values.forEach((value, index) => {
    new DataView(out.buffer).setUint32(4 + index * 4, value);
  });
  return out;
}

function co64(...values: number[]): Uint8Array {
  const out = new Uint8Array(8 + values.length * 8);
  const view = new DataView(out.buffer);
  view.setUint32(4, values.length);
  values.forEach((value, index) => {
    view.setUint32(8 + index * 8, Math.floor(value / 2 ** 32));
    view.setUint32(12 + index * 8, value % 2 ** 32);
  });
  return out;
}

const moovWith = (table: Uint8Array) =>
  box('moov', box('trak', box('mdia', box('minf', box('stbl', table)))));

async function plan(bytes: Uint8Array[]) {
  const path = join(folder, `file-${Math.random()}.mp4`);
  const size = bytes.reduce((sum, part) => sum + part.length, 0);
  await writeFile(path, Buffer.concat(bytes));
  const handle = await open(path, 'r');
  try {
    return await planMp4(handle, size);
  } finally {
    await handle.close();
  }
}

function offsets(moov: Uint8Array, type: 'stco' | 'co64'): number[] {
  const view = new DataView(moov.buffer, moov.byteOffset, moov.byteLength);
  const at = Buffer.from(moov).indexOf(type) - 4;
  const count = view.getUint32(at + 12);
  return Array.from({ length: count }, (_, index) =>
    type === 'stco'
      ? view.getUint32(at + 16 + index * 4)
      : view.getUint32(at + 16 + index * 8) * 2 ** 32 + view.getUint32(at + 20 + index * 8),
  );
}

describe('planMp4', () => {
  const ftyp = box('ftyp', new TextEncoder().encode('M4A isom'));
  const mdat = box('mdat', new Uint8Array(100));

  it('feeds a file whose moov comes first as it is', async () => {
    const moov = moovWith(box('stco', words(2, 100, 150)));
    const result = await plan([ftyp, moov, mdat]);
    expect(result.moved).toBe(false);
    expect(result.head.length).toBe(ftyp.length + moov.length);
    expect(result.ranges).toEqual([[ftyp.length + moov.length, ftyp.length + moov.length + 108]]);
    expect(offsets(result.head.subarray(ftyp.length), 'stco')).toEqual([100, 150]);
  });

  it('moves moov in front: offsets before it grow by its size, later ones stay', async () => {
    const moov = moovWith(box('stco', words(2, 24, 60)));
    const size = ftyp.length + mdat.length + moov.length;
    const tail = box('free', new Uint8Array(4));
    const result = await plan([ftyp, mdat, moov, tail]);
    expect(result.moved).toBe(true);
    expect(offsets(result.head, 'stco')).toEqual([24 + moov.length, 60 + moov.length]);
    expect(result.ranges).toEqual([
      [0, ftyp.length + mdat.length],
      [size, size + tail.length],
    ]);
    const wide = moovWith(box('co64', co64(24, 5_000_000_000)));
    const moved = await plan([ftyp, mdat, wide]);
    expect(offsets(moved.head, 'co64')).toEqual([24 + wide.length, 5_000_000_000]);
  });

  it('refuses to push a 32-bit chunk offset past 4 GiB, and a file without moov', async () => {
    // A 4 GiB file, sparse: the media take no disk space.
    const path = join(folder, 'huge.mp4');
    const mediaLength = 0xfffffff0;
    const header = box('mdat');
    new DataView(header.buffer).setUint32(0, mediaLength);
    const moov = moovWith(box('stco', words(1, 0xffffffe0)));
    const file = await open(path, 'w');
    await file.write(Buffer.concat([ftyp, header]), 0, ftyp.length + 8, 0);
    await file.write(moov, 0, moov.length, ftyp.length + mediaLength);
    await file.close();
    const handle = await open(path, 'r');
    try {
      await expect(planMp4(handle, ftyp.length + mediaLength + moov.length)).rejects.toThrow(
        /32-bit chunk offset \(4294967264\) past 4 GiB/,
      );
    } finally {
      await handle.close();
    }
    await expect(plan([ftyp, mdat])).rejects.toThrow(/no moov box after the media/);
  });
});

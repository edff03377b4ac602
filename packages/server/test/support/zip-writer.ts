// A minimal ZIP writer for tests and the benchmark: it writes exactly the entries it is given —
// including the hostile ones (`../` names, symbolic links) that ZIP tools refuse to create.
import { crc32, deflateRawSync } from 'node:zlib';

/** One entry of a test archive. */
export interface ZipEntry {
  name: string;
  /** File content (absent for a folder, whose name ends with '/'). */
  data?: Buffer;
  /** Unix mode bits stored in the external attributes (e.g. 0o120777 for a link). */
  mode?: number;
  /** Deflate (default) or store. */
  method?: 'deflate' | 'store';
}

/** Builds a ZIP archive (no ZIP64: entries and archive under 4 GiB). */
export function buildZip(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = entry.data ?? Buffer.alloc(0);
    const deflate = (entry.method ?? 'deflate') === 'deflate' && data.length > 0;
    const body = deflate ? deflateRawSync(data) : data;
    const crc = crc32(data);
    const mode = entry.mode ?? (entry.name.endsWith('/') ? 0o040755 : 0o100644);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * The entries of a made-up Vosk model: a folder with a real model's layout (am/final.mdl,
 * conf/, graph/, ivector/) whose files hold bytes that are no Kaldi model. `fill` adds that many
 * bytes of incompressible data spread over `files` files, for archives of a useful size.
 */
export function fakeVoskModel(
  folder: string,
  options: { fill?: number; files?: number; seed?: number } = {},
): ZipEntry[] {
  const entries: ZipEntry[] = [
    { name: `${folder}/` },
    { name: `${folder}/am/` },
    { name: `${folder}/am/final.mdl`, data: Buffer.from('not a kaldi model\n') },
    { name: `${folder}/conf/` },
    { name: `${folder}/conf/model.conf`, data: Buffer.from('--min-active=200\n') },
    { name: `${folder}/conf/mfcc.conf`, data: Buffer.from('--use-energy=false\n') },
    { name: `${folder}/graph/` },
    { name: `${folder}/graph/words.txt`, data: Buffer.from('<eps> 0\nhello 1\n') },
    { name: `${folder}/ivector/` },
    { name: `${folder}/README`, data: Buffer.from('A made-up model for tests.\n') },
  ];
  const files = options.files ?? 1;
  const fill = options.fill ?? 0;
  let state = options.seed ?? 88172645;
  for (let index = 0; index < files && fill > 0; index++) {
    const data = Buffer.alloc(Math.ceil(fill / files));
    for (let at = 0; at < data.length; at += 4) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      data.writeUInt32LE(state >>> 0, Math.min(at, data.length - 4));
    }
    entries.push({ name: `${folder}/graph/part-${index}.bin`, data, method: 'store' });
  }
  return entries;
}

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSherpaModel, sherpaModelProblem } from './sherpa-model.ts';

let folder = '';
afterEach(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
  folder = '';
});

async function modelFolder(files: string[]): Promise<string> {
  folder = await mkdtemp(join(tmpdir(), 'sherpa-model-'));
  for (const name of files) await writeFile(join(folder, name), 'x');
  return folder;
}

describe('readSherpaModel', () => {
  it('reads a streaming transducer, preferring int8 graphs, with bpe.vocab when present', async () => {
    const at = await modelFolder([
      'encoder-epoch-99-avg-1.onnx',
      'encoder-epoch-99-avg-1.int8.onnx',
      'decoder-epoch-99-avg-1.onnx',
      'joiner-epoch-99-avg-1.onnx',
      'joiner-epoch-99-avg-1.int8.onnx',
      'tokens.txt',
      'bpe.vocab',
    ]);
    expect(readSherpaModel(at)).toEqual({
      kind: 'transducer',
      folder: at,
      encoder: join(at, 'encoder-epoch-99-avg-1.int8.onnx'),
      decoder: join(at, 'decoder-epoch-99-avg-1.onnx'),
      joiner: join(at, 'joiner-epoch-99-avg-1.int8.onnx'),
      tokens: join(at, 'tokens.txt'),
      bpeVocab: join(at, 'bpe.vocab'),
    });
  });

  it('reads SenseVoice (model*.onnx beside tokens.txt)', async () => {
    const at = await modelFolder(['model.onnx', 'model.int8.onnx', 'tokens.txt', 'README.md']);
    expect(readSherpaModel(at)).toEqual({
      kind: 'sense-voice',
      folder: at,
      model: join(at, 'model.int8.onnx'),
      tokens: join(at, 'tokens.txt'),
    });
  });

  it('names the files found and those expected for a folder that is neither', async () => {
    const at = await modelFolder(['encoder.onnx', 'tokens.txt']);
    expect(() => readSherpaModel(at)).toThrow(
      `it has encoder.onnx, tokens.txt; expected encoder*.onnx, decoder*.onnx, joiner*.onnx and tokens.txt (a streaming transducer), or model*.onnx and tokens.txt (SenseVoice)`,
    );
    await mkdir(join(at, 'empty'));
    expect(sherpaModelProblem(join(at, 'empty'))).toContain('it has no files');
    expect(sherpaModelProblem(join(at, 'missing'))).toBe(`${join(at, 'missing')} does not exist`);
    expect(sherpaModelProblem(join(at, 'tokens.txt'))).toContain('is a file, not a model folder');
  });
});

// `class-assistant-backend eval` as a user runs it: the real bin as a process, on a folder of
// espeak-ng recordings with their texts, PocketSphinx (Debian's) recognising them alone and
// through a real class of the backend app.
import { type ChildProcess, execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnBin } from './support/bin-process.ts';
import { waitFor } from './support/harness.ts';
import { type SpokenSentence, speechRecording } from './support/speech.ts';

const children: ChildProcess[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function folder(prefix: string): Promise<string> {
  const made = await mkdtemp(join(tmpdir(), `class-assistant-eval-test-${prefix}-`));
  folders.push(made);
  return made;
}

/** Runs `eval` in an English terminal (messages follow the locale), without a Vosk model set. */
async function run(args: string[], env: Record<string, string> = {}) {
  const started = spawnBin(['eval', ...args], {
    LC_ALL: '',
    LC_MESSAGES: '',
    LANG: 'C.UTF-8',
    VOSK_MODEL_PATH: '',
    ...env,
  });
  children.push(started.child);
  const code = await started.exited;
  return { code, ...started.output() };
}

/** Three recordings of short lecture sentences, each with what is said in it. */
const FILES: Record<string, readonly SpokenSentence[]> = {
  greeting: [
    { text: 'good morning everyone', pauseAfterMs: 1500 },
    { text: 'today we will talk about binary search trees', pauseAfterMs: 1500 },
  ],
  books: [{ text: 'please open your books to page ten', pauseAfterMs: 1500 }],
  question: [
    { text: 'does anyone have a question', pauseAfterMs: 1500 },
    { text: 'the exam is next week', pauseAfterMs: 1500 },
  ],
};

/** A folder of name.wav + name.txt pairs, as a student builds it. */
async function recordings(): Promise<string> {
  const set = await folder('set');
  for (const [name, sentences] of Object.entries(FILES)) {
    const recording = await speechRecording(sentences, { name });
    await copyFile(recording.path, join(set, `${name}.wav`));
    // Typed as a person would: capitals and punctuation, which do not count.
    const text = sentences.map(
      (sentence) => `${sentence.text[0]!.toUpperCase()}${sentence.text.slice(1)}.`,
    );
    await writeFile(join(set, `${name}.txt`), `${text.join(' ')}\n`);
  }
  return set;
}

/** Every file under `root` with its size and content digest. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true })) {
    const path = join(root, entry);
    const info = await stat(path);
    out[entry] = info.isDirectory()
      ? 'dir'
      : `${info.size} ${info.mtimeMs} ${createHash('sha256')
          .update(await readFile(path))
          .digest('hex')}`;
  }
  return out;
}

interface RunReport {
  text: string;
  error_rate: number;
  rtf: number;
}

describe('class-assistant-backend eval', () => {
  it('scores PocketSphinx alone and through a class; the pipeline loses no more than 10 %', async () => {
    const set = await recordings();
    // The student's own folder: a settings file and a class, which eval must leave alone.
    const user = await folder('user');
    await mkdir(join(user, 'data', 'classes'), { recursive: true });
    await writeFile(join(user, 'settings.env'), 'ASR_MODE=mock\nLOCAL_ASR_LANGUAGE=zh\n');
    await writeFile(join(user, 'data', 'class_transcript.txt'), '[09:00:00] 上一节课\n');
    const before = await snapshot(user);
    // Its own temporary folder, to see that eval removes the data folder it made there.
    const temporary = await folder('tmp');

    const result = await run(
      [
        set,
        '--engine',
        'pocketsphinx',
        '--language',
        'en',
        '--json',
        '--data-dir',
        join(user, 'data'),
        '--settings-file',
        join(user, 'settings.env'),
      ],
      { TMPDIR: temporary },
    );
    expect(result.stderr).toContain('the live pipeline');
    expect(result.code).toBe(0);
    // stdout is one JSON object and nothing else; progress went to stderr.
    const report = JSON.parse(result.stdout) as {
      engine: string;
      metric: string;
      files: Array<{
        name: string;
        duration_s: number;
        reference: string;
        engine: RunReport;
        pipeline: RunReport;
        pipeline_to_engine: number | null;
      }>;
      overall: {
        engine_error_rate: number;
        pipeline_error_rate: number;
        pipeline_to_engine: number | null;
        rtf: number;
        metric: string;
      };
    };
    expect(report).toMatchObject({ engine: 'pocketsphinx', metric: 'wer' });
    expect(report.files.map((file) => file.name)).toEqual(['books', 'greeting', 'question']);
    for (const file of report.files) {
      expect(file.reference).toContain(FILES[file.name]![0]!.text.slice(1));
      expect(file.duration_s).toBeGreaterThan(2);
      for (const side of [file.engine, file.pipeline]) {
        expect(side.text).not.toBe('');
        expect(side.error_rate).toBeGreaterThanOrEqual(0);
        expect(side.error_rate).toBeLessThan(1);
        expect(side.rtf).toBeGreaterThan(0);
      }
    }
    const { overall } = report;
    expect(overall.metric).toBe('wer');
    expect(overall.engine_error_rate).toBeGreaterThanOrEqual(0);
    expect(overall.engine_error_rate).toBeLessThan(1);
    expect(overall.rtf).toBeGreaterThan(0);
    // The live pipeline (speech detection, phrases, merging, cleaning) costs at most 10 % more
    // errors than the engine on whole files.
    expect(overall.pipeline_error_rate).toBeLessThanOrEqual(overall.engine_error_rate * 1.1);
    if (overall.engine_error_rate > 0) {
      expect(overall.pipeline_to_engine).toBeCloseTo(
        overall.pipeline_error_rate / overall.engine_error_rate,
        10,
      );
    }

    expect(await snapshot(user)).toEqual(before);
    // (Node keeps its compile cache there too.)
    expect((await readdir(temporary)).filter((name) => name.startsWith('class-assistant'))).toEqual(
      [],
    );
  }, 240_000);

  it('removes its temporary folder when interrupted mid-class (exit 130)', async () => {
    const set = await folder('interrupt');
    const recording = await speechRecording(FILES.greeting!, { name: 'greeting' });
    await copyFile(recording.path, join(set, 'greeting.wav'));
    await writeFile(join(set, 'greeting.txt'), 'Good morning everyone.');
    const temporary = await folder('tmp-interrupt');
    const started = spawnBin(['eval', set, '--engine', 'pocketsphinx'], {
      LANG: 'C.UTF-8',
      TMPDIR: temporary,
    });
    children.push(started.child);
    // The class runs: its data folder exists in the temporary folder.
    await waitFor(
      () => started.output().stderr.includes('the live pipeline'),
      60_000,
      'the live pipeline to start',
    );
    const made = (await readdir(temporary)).filter((name) => name.startsWith('class-assistant'));
    expect(made).toHaveLength(1);
    started.child.kill('SIGINT');
    expect(await started.exited).toBe(130);
    expect(started.output().stdout).toBe('');
    expect((await readdir(temporary)).filter((name) => name.startsWith('class-assistant'))).toEqual(
      [],
    );
  }, 120_000);

  it('prints a table without --json; a 44.1 kHz stereo recording is converted as a class converts it', async () => {
    const set = await folder('one');
    const recording = await speechRecording(FILES.books!, { name: 'books' });
    // The same recording as a phone or Audacity might save it.
    await promisify(execFile)('sox', [
      recording.path,
      '-r',
      '44100',
      '-c',
      '2',
      join(set, 'books.wav'),
    ]);
    await writeFile(join(set, 'books.txt'), 'Please open your books to page ten.');
    const result = await run([set, '--engine', 'pocketsphinx']);
    expect(result.code).toBe(0);
    // Both ways heard the sentence (PocketSphinx gets "please open your books" on this audio).
    expect(result.stderr).toMatch(/engine {3}books: please open your books/);
    expect(result.stderr).toMatch(/pipeline books: please open your books/);
    const seconds = (recording.durationMs / 1000).toFixed(1);
    expect(result.stdout).toMatch(new RegExp(`^books\\s+${seconds.replace('.', '\\.')}\\s`, 'm'));
    expect(result.stdout).toMatch(
      /^file\s+seconds\s+engine WER\s+pipeline WER\s+pipeline\/engine/m,
    );
    expect(result.stdout).toMatch(/^books\s+\d+\.\d/m);
    expect(result.stdout).toMatch(/^overall\s/m);
  }, 120_000);

  it('names what is wrong with a folder, and exits 3', async () => {
    const set = await folder('bad');
    const empty = await run([set, '--engine', 'pocketsphinx']);
    expect(empty.code).toBe(3);
    expect(empty.stderr).toContain(`${set} holds no recordings`);

    const recording = await speechRecording(FILES.books!, { name: 'books' });
    await copyFile(recording.path, join(set, 'lecture.wav'));
    const unpaired = await run([set, '--engine', 'pocketsphinx']);
    expect(unpaired.code).toBe(3);
    expect(unpaired.stderr).toContain(`${join(set, 'lecture.wav')} has no lecture.txt beside it`);
    // In Chinese for a Chinese terminal.
    const chinese = await run([set, '--engine', 'pocketsphinx'], {
      LANG: 'zh_CN.UTF-8',
      LC_ALL: '',
    });
    expect(chinese.code).toBe(3);
    expect(chinese.stderr).toContain(`${join(set, 'lecture.wav')} 旁边没有 lecture.txt`);

    await writeFile(join(set, 'lecture.txt'), '  。\n');
    const blank = await run([set, '--engine', 'pocketsphinx']);
    expect(blank.code).toBe(3);
    expect(blank.stderr).toContain(`${join(set, 'lecture.txt')} holds no words`);

    await writeFile(join(set, 'lecture.txt'), 'please open your books');
    await writeFile(join(set, 'notes.txt'), 'a text without its recording');
    const orphan = await run([set, '--engine', 'pocketsphinx']);
    expect(orphan.code).toBe(3);
    expect(orphan.stderr).toContain(`${join(set, 'notes.txt')} has no notes.wav beside it`);

    await writeFile(join(set, 'notes.wav'), 'RIFF....WAVEnot really a recording');
    const broken = await run([set, '--engine', 'pocketsphinx']);
    expect(broken.code).toBe(3);
    expect(broken.stderr).toContain(`${join(set, 'notes.wav')} is not a WAV file the app can play`);

    const missing = await run([join(set, 'nowhere'), '--engine', 'pocketsphinx']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain(`${join(set, 'nowhere')} does not exist`);
  }, 60_000);

  it('refuses bad options (exit 2) and says when the engine cannot run (exit 1)', async () => {
    const set = await folder('options');
    const recording = await speechRecording(FILES.books!, { name: 'books' });
    await copyFile(recording.path, join(set, 'books.wav'));
    await writeFile(join(set, 'books.txt'), 'Please open your books to page ten.');

    const noFolder = await run([]);
    expect(noFolder.code).toBe(2);
    expect(noFolder.stderr).toContain('give the folder of recordings');
    const language = await run([set, '--language', 'fr']);
    expect(language.code).toBe(2);
    expect(language.stderr).toContain('--language must be zh or en, got "fr"');
    const engine = await run([set, '--engine', 'whisper']);
    expect(engine.code).toBe(2);
    expect(engine.stderr).toContain('--engine must be one of auto, vosk, pocketsphinx');
    const model = await run([set, '--engine', 'pocketsphinx', '--model', set]);
    expect(model.code).toBe(2);
    expect(model.stderr).toContain(`--model ${set} is not a model folder`);

    // Vosk without a model: the class would not start either; the message says what to set.
    const user = await folder('novosk');
    const vosk = await run([
      set,
      '--engine',
      'vosk',
      '--data-dir',
      join(user, 'data'),
      '--settings-file',
      join(user, '.env'),
    ]);
    expect(vosk.code).toBe(1);
    expect(vosk.stderr).toContain('VOSK_MODEL_PATH');
    expect(vosk.stdout).toBe('');

    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('name.wav');
  }, 60_000);
});

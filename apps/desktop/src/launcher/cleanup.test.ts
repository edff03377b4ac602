// The cleanup's decisions on Windows and macOS, driven by those tools' real output formats. The
// Linux path runs against real processes in test/cleanup.test.ts.
import { describe, expect, it } from 'vitest';
import { cleanupStaleBackends } from './cleanup.ts';
import type { LauncherSystem, RunResult } from './system.ts';

interface Fake {
  system: LauncherSystem;
  commands: string[];
  signals: string[];
  requests: string[];
}

/** A fake OS: `listening` processes hold the port until stopped; `answers` maps commands. */
function fakeSystem(options: {
  platform: NodeJS.Platform;
  listening: Set<number>;
  alive: Set<number>;
  answer(command: string): RunResult;
  /** Our backend answers health and shutdown (stopping the listener with this pid). */
  ourBackend?: number;
  /** Processes that ignore the polite stop. */
  stubborn?: Set<number>;
}): Fake {
  const commands: string[] = [];
  const signals: string[] = [];
  const requests: string[] = [];
  const stop = (pid: number) => {
    options.alive.delete(pid);
    options.listening.delete(pid);
  };
  const system: LauncherSystem = {
    platform: options.platform,
    selfPid: 1,
    async run(file, args) {
      const command = [file, ...args].join(' ');
      commands.push(command);
      const kill = /^taskkill\.exe \/PID (\d+) \/T( \/F)?$/.exec(command);
      if (kill) {
        const pid = Number(kill[1]);
        if (kill[2] || !options.stubborn?.has(pid)) stop(pid);
        return { code: 0, stdout: 'SUCCESS', stderr: '' };
      }
      return options.answer(command);
    },
    async readText() {
      return undefined;
    },
    async listDir() {
      return [];
    },
    async readLink() {
      return undefined;
    },
    signal(pid, signal) {
      signals.push(`${signal} ${pid}`);
      if (!options.alive.has(pid)) return false;
      if (signal === 'SIGKILL' || !options.stubborn?.has(pid)) stop(pid);
      return true;
    },
    isAlive: (pid) => options.alive.has(pid),
    async isListening() {
      return options.listening.size > 0;
    },
    async fetch(input, init) {
      const url = String(input);
      requests.push(`${init?.method ?? 'GET'} ${url}`);
      if (options.ourBackend === undefined || !options.listening.has(options.ourBackend)) {
        throw new TypeError('fetch failed');
      }
      if (url.endsWith('/api/health')) {
        return Response.json({ status: 'healthy', compatible_client: '1.2.0' });
      }
      stop(options.ourBackend);
      return Response.json({ status: 'stopping' }, { status: 202 });
    },
    async sleep() {},
  };
  return { system, commands, signals, requests };
}

const NONE: RunResult = { code: 0, stdout: '', stderr: '' };

describe('cleanupStaleBackends on Windows', () => {
  it('asks our backend to shut down over HTTP, then stops stale backends by name and title', async () => {
    const fake = fakeSystem({
      platform: 'win32',
      listening: new Set([4312]),
      alive: new Set([4312, 7788]),
      ourBackend: 4312,
      answer(command) {
        if (command.startsWith('tasklist.exe')) {
          return {
            code: 0,
            stdout: '"class-assistant-backend.exe","7788","Console","1","40,000 K"\r\n',
            stderr: '',
          };
        }
        if (command.includes('WINDOWTITLE'))
          return { code: 128, stdout: '', stderr: 'ERROR: not found' };
        return NONE;
      },
    });
    const report = await cleanupStaleBackends({ system: fake.system, port: 8765 });
    expect(fake.requests).toEqual([
      'GET http://127.0.0.1:8765/api/health',
      'POST http://127.0.0.1:8765/api/shutdown',
    ]);
    expect(report.shutdownOverHttp).toBe(true);
    expect(fake.commands).toEqual([
      'tasklist.exe /FI IMAGENAME eq class-assistant-backend.exe /FO CSV /NH',
      'taskkill.exe /PID 7788 /T',
      'taskkill.exe /FI WINDOWTITLE eq ClassAssistant-Backend /T /F',
    ]);
    expect(report.stopped).toEqual([{ pid: 7788, reason: 'name', forced: false }]);
    expect(report.portFree).toBe(true);
  });

  it('finds a foreign port holder with PowerShell (netstat when PowerShell is missing) and forces it', async () => {
    for (const powershellMissing of [false, true]) {
      const fake = fakeSystem({
        platform: 'win32',
        listening: new Set([5000]),
        alive: new Set([5000]),
        stubborn: new Set([5000]),
        answer(command) {
          if (command.startsWith('powershell.exe')) {
            return powershellMissing
              ? { code: null, stdout: '', stderr: '', error: 'ENOENT' }
              : { code: 0, stdout: '5000\r\n', stderr: '' };
          }
          if (command.startsWith('netstat.exe')) {
            return {
              code: 0,
              stdout:
                '  TCP    127.0.0.1:8765         0.0.0.0:0              LISTENING       5000\r\n',
              stderr: '',
            };
          }
          return NONE;
        },
      });
      const report = await cleanupStaleBackends({
        system: fake.system,
        port: 8765,
        byName: false,
        graceMs: 50,
      });
      expect(fake.commands.filter((command) => command.startsWith('taskkill'))).toEqual([
        'taskkill.exe /PID 5000 /T',
        'taskkill.exe /PID 5000 /T /F',
      ]);
      expect(fake.commands.some((command) => command.startsWith('netstat'))).toBe(
        powershellMissing,
      );
      expect(report.stopped).toEqual([{ pid: 5000, reason: 'port', forced: true }]);
      expect(report.portFree).toBe(true);
    }
  });
});

describe('cleanupStaleBackends on macOS', () => {
  it('finds the port holder with lsof and stale backends with ps, stopping them with SIGTERM', async () => {
    const fake = fakeSystem({
      platform: 'darwin',
      listening: new Set([812]),
      alive: new Set([812, 900]),
      answer(command) {
        if (command.startsWith('lsof')) return { code: 0, stdout: '812\n', stderr: '' };
        if (command.startsWith('ps')) {
          return {
            code: 0,
            stdout: '  812 /tmp/x/python3\n  900 /Apps/CA/backend/class-assistant-backend\n',
            stderr: '',
          };
        }
        return NONE;
      },
    });
    const report = await cleanupStaleBackends({ system: fake.system, port: 8765 });
    expect(fake.commands).toEqual(['lsof -nP -iTCP:8765 -sTCP:LISTEN -t', 'ps -axo pid=,comm=']);
    expect(fake.signals).toEqual(['SIGTERM 812', 'SIGTERM 900']);
    expect(report.stopped).toEqual([
      { pid: 812, reason: 'port', forced: false },
      { pid: 900, reason: 'name', forced: false },
    ]);
  });

  it('never stops the launcher itself and reports a port it cannot free', async () => {
    const fake = fakeSystem({
      platform: 'darwin',
      listening: new Set([1, 77]),
      alive: new Set([1, 77]),
      answer(command) {
        if (command.startsWith('lsof')) return { code: 0, stdout: '1\n77\n', stderr: '' };
        return NONE;
      },
    });
    // Process 77 belongs to another user: signals fail, it stays.
    fake.system.signal = (pid, signal) => {
      fake.signals.push(`${signal} ${pid}`);
      return false;
    };
    const report = await cleanupStaleBackends({ system: fake.system, port: 8765, graceMs: 50 });
    expect(fake.signals).toEqual(['SIGTERM 77']);
    expect(report.failed).toEqual([77]);
    expect(report.portFree).toBe(false);
    expect(report.messages.at(-1)).toBe('port 8765 is still in use');
  });
});

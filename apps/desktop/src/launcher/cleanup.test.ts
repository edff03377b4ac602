// The cleanup's decisions on Windows and macOS, driven by those tools' real output formats. The
// Linux path runs against real processes in test/cleanup.test.ts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupStaleBackends } from './cleanup.ts';
import type { LauncherSystem, RunResult } from './system.ts';

interface Fake {
  system: LauncherSystem;
  commands: string[];
  signals: string[];
  requests: string[];
  /** The processes still running. */
  alive: Set<number>;
}

/** A Class Assistant backend in the fake OS, answering /api/health on its port. */
interface FakeBackend {
  pid: number;
  port: number;
  /** The launcher that started it (alive or not, as `alive` says); null when started by hand. */
  launcherPid: number | null;
  dataDir: string;
  /** Its class (default idle). */
  monitor?: 'idle' | 'running' | 'paused';
}

const TOKEN = 'run-token-1';

/**
 * A fake OS. `listeners` maps a port to the process listening on it (stopped processes stop
 * listening); `backends` answer health (and shutdown, with the token from their data folder);
 * `answer` maps every other command to its output.
 */
function fakeSystem(options: {
  platform: NodeJS.Platform;
  listeners: Map<number, number>;
  alive: Set<number>;
  backends?: FakeBackend[];
  answer(command: string): RunResult;
  /** Processes that ignore the polite stop. */
  stubborn?: Set<number>;
}): Fake {
  const commands: string[] = [];
  const signals: string[] = [];
  const requests: string[] = [];
  const stop = (pid: number) => {
    options.alive.delete(pid);
    for (const [port, owner] of options.listeners)
      if (owner === pid) options.listeners.delete(port);
  };
  const backendOn = (port: number) =>
    options.backends?.find(
      (backend) => backend.port === port && options.listeners.get(port) === backend.pid,
    );
  const system: LauncherSystem = {
    platform: options.platform,
    selfPid: 1,
    uid: 1000,
    userName: 'SCHOOL\\student',
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
    async readText(path) {
      // As the code builds it (backslashes on Windows).
      const backend = options.backends?.find(
        (entry) => path === join(entry.dataDir, '_shutdown.token'),
      );
      return backend ? `${TOKEN}\n` : undefined;
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
    async isListening(port) {
      return options.listeners.has(port);
    },
    async fetch(input, init) {
      const url = new URL(String(input));
      const token = new Headers(init?.headers).get('x-shutdown-token');
      requests.push(`${init?.method ?? 'GET'} ${url.href}${token ? ` (token ${token})` : ''}`);
      const backend = backendOn(Number(url.port));
      if (!backend) throw new TypeError('fetch failed');
      if (url.pathname === '/api/health') {
        return Response.json({
          status: 'healthy',
          compatible_client: '1.2.0',
          pid: backend.pid,
          launcher_pid: backend.launcherPid,
          data_dir: backend.dataDir,
          monitor: { state: backend.monitor ?? 'idle' },
        });
      }
      if (token !== TOKEN) return Response.json({ error: 'forbidden' }, { status: 403 });
      stop(backend.pid);
      return Response.json({ status: 'stopping' }, { status: 202 });
    },
    async sleep() {},
  };
  return { system, commands, signals, requests, alive: options.alive };
}

const NONE: RunResult = { code: 0, stdout: '', stderr: '' };
const WINDOWS_BACKEND = 'C:\\Users\\student\\ClassAssistant\\backend\\class-assistant-backend.exe';

/** `tasklist /V /FO CSV` for one process of `user`. */
function tasklistUser(pid: number, user: string): RunResult {
  return {
    code: 0,
    stdout: `"class-assistant-backend.exe","${pid}","Console","1","40,000 K","Running","${user}","0:00:01","N/A"\r\n`,
    stderr: '',
  };
}

/**
 * Our backend (process 4312, data folder C:/CA/data) on port 8765 under Windows, its launcher
 * 900 gone; PowerShell's GetOwner answers `owner`, anything else `other` (or nothing).
 */
function windowsBackendOnPort(options: {
  owner: RunResult;
  launcherPid?: number | null;
  monitor?: FakeBackend['monitor'];
  other?(command: string): RunResult | undefined;
}): Fake {
  return fakeSystem({
    platform: 'win32',
    listeners: new Map([[8765, 4312]]),
    alive: new Set([4312]),
    backends: [
      {
        pid: 4312,
        port: 8765,
        launcherPid: options.launcherPid === undefined ? 900 : options.launcherPid,
        dataDir: 'C:/CA/data',
        ...(options.monitor ? { monitor: options.monitor } : {}),
      },
    ],
    answer(command) {
      if (command.includes('"ProcessId=4312"')) return options.owner;
      if (command.includes('-LocalPort 8765')) return { code: 0, stdout: '4312\r\n', stderr: '' };
      return options.other?.(command) ?? NONE;
    },
  });
}

describe('cleanupStaleBackends on Windows', () => {
  it('asks our stale backend to stop with its token, stops orphans of this installation, leaves other installations alone', async () => {
    const fake = fakeSystem({
      platform: 'win32',
      // 4312: our backend whose launcher (900) is gone, still on the port.
      listeners: new Map([[8765, 4312]]),
      alive: new Set([4312, 7788, 7790, 7791]),
      backends: [{ pid: 4312, port: 8765, launcherPid: 900, dataDir: 'C:/CA/data' }],
      answer(command) {
        if (command.includes('-LocalPort 8765')) return { code: 0, stdout: '4312\r\n', stderr: '' };
        if (command.includes('"ProcessId=4312"'))
          return { code: 0, stdout: 'SCHOOL\\student\r\n', stderr: '' };
        if (command.includes('Win32_Process')) {
          return {
            code: 0,
            stdout: `7788|${WINDOWS_BACKEND}\r\n7790|D:\\Portable\\ClassAssistant\\backend\\class-assistant-backend.exe\r\n7791|${WINDOWS_BACKEND}\r\n`,
            stderr: '',
          };
        }
        if (command.includes('-OwningProcess')) return NONE;
        if (command.includes('WINDOWTITLE'))
          return { code: 128, stdout: '', stderr: 'ERROR: not found' };
        return NONE;
      },
    });
    const report = await cleanupStaleBackends({
      system: fake.system,
      port: 8765,
      backendExecutable: WINDOWS_BACKEND,
      // 7788 was the backend of the launcher that died.
      orphans: [7788],
    });
    expect(fake.requests).toEqual([
      'GET http://127.0.0.1:8765/api/health',
      `POST http://127.0.0.1:8765/api/shutdown (token ${TOKEN})`,
    ]);
    expect(report.shutdownOverHttp).toBe(true);
    expect(fake.commands.filter((command) => command.startsWith('taskkill'))).toEqual([
      'taskkill.exe /PID 7788 /T',
      'taskkill.exe /FI WINDOWTITLE eq ClassAssistant-Backend /T /F',
    ]);
    expect(report.stopped).toEqual([{ pid: 7788, reason: 'name', forced: false }]);
    expect(report.leftAlone).toEqual([
      { pid: 7790, why: 'another installation' },
      // Same program, not listening, not recorded: possibly a backend still starting.
      { pid: 7791, why: 'not listening' },
    ]);
    expect(report.portFree).toBe(true);
  });

  it('leaves a running Class Assistant on the port alone and says so', async () => {
    const fake = fakeSystem({
      platform: 'win32',
      listeners: new Map([[8765, 4312]]),
      alive: new Set([4312, 900]),
      backends: [{ pid: 4312, port: 8765, launcherPid: 900, dataDir: 'C:/CA/data' }],
      answer(command) {
        if (command.includes('Win32_Process'))
          return { code: 0, stdout: `4312|${WINDOWS_BACKEND}\r\n`, stderr: '' };
        if (command.includes('-OwningProcess 4312'))
          return { code: 0, stdout: '8765\r\n', stderr: '' };
        if (command.includes('WINDOWTITLE')) return { code: 128, stdout: '', stderr: '' };
        return NONE;
      },
    });
    const report = await cleanupStaleBackends({
      system: fake.system,
      port: 8765,
      backendExecutable: WINDOWS_BACKEND,
    });
    expect(report.liveInstance).toEqual({
      port: 8765,
      pid: 4312,
      launcherPid: 900,
      dataDir: 'C:/CA/data',
    });
    expect(report.leftAlone).toEqual([{ pid: 4312, why: 'live' }]);
    expect(fake.requests.some((request) => request.startsWith('POST'))).toBe(false);
    expect(fake.commands.some((command) => command.startsWith('taskkill.exe /PID'))).toBe(false);
    expect(fake.alive.has(4312)).toBe(true);
    expect(report.portFree).toBe(false);
    expect(report.messages).not.toContain('port 8765 is still in use');
  });

  it("never sends the token to another user's backend (tasklist without PowerShell): stops it as any other process", async () => {
    const fake = windowsBackendOnPort({
      owner: { code: null, stdout: '', stderr: '', error: 'ENOENT' },
      other: (command) =>
        command.startsWith('tasklist.exe /FI PID eq 4312')
          ? tasklistUser(4312, 'SCHOOL\\teacher')
          : undefined,
    });
    const report = await cleanupStaleBackends({ system: fake.system, port: 8765, byName: false });
    expect(fake.requests).toEqual(['GET http://127.0.0.1:8765/api/health']);
    expect(report.messages[0]).toBe(
      'did not ask the backend on port 8765 (process 4312) to stop over HTTP: it belongs to another user',
    );
    expect(report.stopped).toEqual([{ pid: 4312, reason: 'port', forced: false }]);
  });

  it('knows a user named in Chinese as this user (PowerShell answers in UTF-8)', async () => {
    const fake = windowsBackendOnPort({
      owner: { code: 0, stdout: 'LAB-PC\\张三\r\n', stderr: '' },
    });
    fake.system.userName = 'LAB-PC\\张三';
    const report = await cleanupStaleBackends({ system: fake.system, port: 8765, byName: false });
    expect(fake.requests.at(-1)).toBe(`POST http://127.0.0.1:8765/api/shutdown (token ${TOKEN})`);
    expect(report.shutdownOverHttp).toBe(true);
  });

  it('leaves a backend started without the launcher alone while it runs a class, and stops it when idle', async () => {
    for (const state of ['running', 'idle'] as const) {
      const fake = windowsBackendOnPort({
        owner: { code: 0, stdout: 'SCHOOL\\student\r\n', stderr: '' },
        launcherPid: null,
        monitor: state,
      });
      const report = await cleanupStaleBackends({ system: fake.system, port: 8765, byName: false });
      if (state === 'running') {
        expect(report.liveInstance).toEqual({
          port: 8765,
          pid: 4312,
          launcherPid: null,
          dataDir: 'C:/CA/data',
        });
        expect(report.messages).toEqual([
          'left running: the Class Assistant on port 8765 (process 4312) was started without the launcher and has a class in progress',
        ]);
        expect(fake.alive.has(4312)).toBe(true);
      } else {
        expect(report.liveInstance).toBeUndefined();
        expect(report.shutdownOverHttp).toBe(true);
        expect(fake.alive.has(4312)).toBe(false);
      }
    }
  });

  it('finds a foreign port holder with PowerShell (netstat when PowerShell is missing) and forces it', async () => {
    for (const powershellMissing of [false, true]) {
      const fake = fakeSystem({
        platform: 'win32',
        listeners: new Map([[8765, 5000]]),
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
  it("stops the port holder and this installation's stale backend with SIGTERM, not another installation's", async () => {
    const program = '/Applications/Class Assistant.app/Contents/backend/class-assistant-backend';
    const fake = fakeSystem({
      platform: 'darwin',
      // 900: this installation's backend, stale on port 8770 (its launcher 55 is gone).
      listeners: new Map([
        [8765, 812],
        [8770, 900],
      ]),
      alive: new Set([812, 900, 901]),
      backends: [{ pid: 900, port: 8770, launcherPid: 55, dataDir: '/Users/s/CA/data' }],
      answer(command) {
        if (command.startsWith('lsof -nP -iTCP:8765'))
          return { code: 0, stdout: '812\n', stderr: '' };
        if (command === 'lsof -nP -a -p 900 -iTCP -sTCP:LISTEN -Fn')
          return { code: 0, stdout: 'p900\nf12\nn127.0.0.1:8770\n', stderr: '' };
        if (command === 'ps -o uid= -p 900') return { code: 0, stdout: ' 1000\n', stderr: '' };
        if (command.startsWith('ps -axo')) {
          return {
            code: 0,
            stdout: `  812 /tmp/x/python3\n  900 ${program}\n  901 /Volumes/USB/CA/backend/class-assistant-backend\n`,
            stderr: '',
          };
        }
        return NONE;
      },
    });
    const report = await cleanupStaleBackends({
      system: fake.system,
      port: 8765,
      backendExecutable: program,
    });
    expect(fake.signals).toEqual(['SIGTERM 812']);
    expect(fake.requests).toEqual([
      'GET http://127.0.0.1:8765/api/health',
      'GET http://127.0.0.1:8770/api/health',
      `POST http://127.0.0.1:8770/api/shutdown (token ${TOKEN})`,
    ]);
    expect(report.stopped).toEqual([{ pid: 812, reason: 'port', forced: false }]);
    expect(fake.alive.has(900)).toBe(false);
    expect(report.leftAlone).toEqual([{ pid: 901, why: 'another installation' }]);
    expect(report.messages).toContain(
      'asked the stale Class Assistant backend on port 8770 (process 900) to stop',
    );
  });

  it('never stops the launcher itself and reports a port it cannot free', async () => {
    const fake = fakeSystem({
      platform: 'darwin',
      listeners: new Map([[8765, 77]]),
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

import { describe, expect, it } from 'vitest';
import {
  listeningInodes,
  listeningPortsByInode,
  lsofListeningPortsCommand,
  lsofPortOwnersCommand,
  netstatCommand,
  POWERSHELL_UTF8,
  parseLsofPorts,
  parseNetstatListeners,
  parseNetstatPortsOf,
  parseOwnerLine,
  parsePidLines,
  parsePidPathLines,
  parsePsProcesses,
  parseTasklistCsv,
  parseTasklistUser,
  procStatusUid,
  programName,
  psCommand,
  psUidCommand,
  socketInode,
  taskkillByTitleCommand,
  taskkillCommand,
  tasklistCommand,
  tasklistUserCommand,
  windowsListeningPortsCommand,
  windowsPortOwnersCommand,
  windowsProcessOwnerCommand,
  windowsProcessPathsCommand,
} from './process-queries.ts';

describe('Linux /proc', () => {
  const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:223D 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0
   1: 0100007F:223D 0100007F:D6D8 01 00000000:00000000 00:00000000 00000000  1000        0 5151 1 0000000000000000 20 4 30 10 -1
   2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 999 1 0000000000000000 100 0 0 10 0
   3: 0100007F:47E5 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 0 1 0000000000000000 100 0 0 10 0
`;
  const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:223D 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 7777 1 0000000000000000 100 0 0 10 0
`;

  it('finds the inodes of sockets listening on the port (8765 = 0x223D), IPv4 and IPv6', () => {
    expect(listeningInodes(TCP, 8765)).toEqual(['4242']);
    expect(listeningInodes(TCP6, 8765)).toEqual(['7777']);
    expect(listeningInodes(TCP, 22)).toEqual(['999']);
    // Inode 0: a socket in TIME_WAIT-like limbo owned by no process.
    expect(listeningInodes(TCP, 18405)).toEqual([]);
    expect(listeningInodes('', 8765)).toEqual([]);
  });

  it('maps listening sockets to their ports, and reads a process’s user', () => {
    expect(listeningPortsByInode(TCP)).toEqual(
      new Map([
        ['4242', 8765],
        ['999', 22],
      ]),
    );
    expect(listeningPortsByInode(TCP6)).toEqual(new Map([['7777', 8765]]));
    expect(procStatusUid('Name:\tnode\nUmask:\t0022\nUid:\t1000\t1000\t1000\t1000\n')).toBe(1000);
    expect(procStatusUid('')).toBeUndefined();
  });

  it('reads socket links and program names', () => {
    expect(socketInode('socket:[4242]')).toBe('4242');
    expect(socketInode('/dev/null')).toBeUndefined();
    expect(programName('/opt/ClassAssistant/backend/class-assistant-backend (deleted)')).toBe(
      'class-assistant-backend',
    );
    expect(programName('C:\\Apps\\backend\\class-assistant-backend.exe')).toBe(
      'class-assistant-backend.exe',
    );
  });
});

describe('Windows', () => {
  it('asks PowerShell for the listening process, netstat as the fallback', () => {
    expect(windowsPortOwnersCommand(8765)).toEqual({
      file: 'powershell.exe',
      args: [
        '-NoProfile',
        '-NonInteractive',
        '-Command',
        `${POWERSHELL_UTF8}Get-NetTCPConnection -State Listen -LocalPort 8765 -ErrorAction SilentlyContinue | Select-Object -ExpandProperty OwningProcess`,
      ],
    });
    expect(parsePidLines('4312\r\n4312\r\n\r\n')).toEqual([4312]);
    expect(parsePidLines('')).toEqual([]);
    expect(netstatCommand()).toEqual({ file: 'netstat.exe', args: ['-ano', '-p', 'TCP'] });
  });

  it('reads netstat in English and in a translated Windows by the foreign address', () => {
    const english = `
Active Connections

  Proto  Local Address          Foreign Address        State           PID
  TCP    0.0.0.0:135            0.0.0.0:0              LISTENING       1064
  TCP    127.0.0.1:8765         0.0.0.0:0              LISTENING       4312
  TCP    127.0.0.1:8765         127.0.0.1:51234        ESTABLISHED     4312
  TCP    127.0.0.1:51234        127.0.0.1:8765         ESTABLISHED     9000
  TCP    127.0.0.1:18765        0.0.0.0:0              LISTENING       5555
  TCP    [::1]:8765             [::]:0                 LISTENING       4313
`;
    expect(parseNetstatListeners(english, 8765)).toEqual([4312, 4313]);
    const german = `
Aktive Verbindungen

  Proto  Lokale Adresse         Remoteadresse          Status           PID
  TCP    127.0.0.1:8765         0.0.0.0:0              ABHÖREN          4312
  TCP    127.0.0.1:8765         127.0.0.1:51234        HERGESTELLT      4312
`;
    expect(parseNetstatListeners(german, 8765)).toEqual([4312]);
    // The ports one process listens on, for telling a stale backend from a live one.
    expect(parseNetstatPortsOf(english, 4312)).toEqual([8765]);
    expect(parseNetstatPortsOf(english, 9000)).toEqual([]);
    expect(windowsListeningPortsCommand(4312).args.at(-1)).toBe(
      `${POWERSHELL_UTF8}Get-NetTCPConnection -State Listen -OwningProcess 4312 -ErrorAction SilentlyContinue | Select-Object -ExpandProperty LocalPort`,
    );
  });

  it('finds processes by image name with their executables, and a process’s user', () => {
    expect(windowsProcessPathsCommand('class-assistant-backend.exe').args.at(-1)).toBe(
      `${POWERSHELL_UTF8}Get-CimInstance Win32_Process -Filter "Name='class-assistant-backend.exe'" | ForEach-Object { "$($_.ProcessId)|$($_.ExecutablePath)" }`,
    );
    expect(
      parsePidPathLines(
        '4312|C:\\Users\\me\\ClassAssistant\\backend\\class-assistant-backend.exe\r\n7788|\r\n\r\n',
        'class-assistant-backend.exe',
      ),
    ).toEqual([
      {
        pid: 4312,
        name: 'class-assistant-backend.exe',
        path: 'C:\\Users\\me\\ClassAssistant\\backend\\class-assistant-backend.exe',
      },
      { pid: 7788, name: 'class-assistant-backend.exe' },
    ]);
    expect(tasklistUserCommand(4312)).toEqual({
      file: 'tasklist.exe',
      args: ['/FI', 'PID eq 4312', '/V', '/FO', 'CSV', '/NH'],
    });
    expect(
      parseTasklistUser(
        '"class-assistant-backend.exe","4312","Console","1","52,104 K","Running","PC\\me","0:00:03","N/A"\r\n',
      ),
    ).toBe('PC\\me');
    expect(
      parseTasklistUser(
        '"class-assistant-backend.exe","7788","Services","0","40,000 K","Unknown","N/A","0:00:01","N/A"\r\n',
      ),
    ).toBeUndefined();
    // The owner from PowerShell (UTF-8: a user named 张三 arrives intact); tasklist is the fallback.
    expect(windowsProcessOwnerCommand(4312).args.at(-1)).toBe(
      `${POWERSHELL_UTF8}$p = Get-CimInstance Win32_Process -Filter "ProcessId=4312"; if ($p) { $o = Invoke-CimMethod -InputObject $p -MethodName GetOwner; if ($o.ReturnValue -eq 0) { "$($o.Domain)\\$($o.User)" } }`,
    );
    expect(parseOwnerLine('\r\nSCHOOL\\张三\r\n')).toBe('SCHOOL\\张三');
    expect(parseOwnerLine('')).toBeUndefined();
  });

  it('lists processes by image name with tasklist and stops them with taskkill', () => {
    expect(tasklistCommand('class-assistant-backend.exe')).toEqual({
      file: 'tasklist.exe',
      args: ['/FI', 'IMAGENAME eq class-assistant-backend.exe', '/FO', 'CSV', '/NH'],
    });
    expect(
      parseTasklistCsv(
        '"class-assistant-backend.exe","4312","Console","1","52,104 K"\r\n"class-assistant-backend.exe","7788","Services","0","40,000 K"\r\n',
      ),
    ).toEqual([
      { pid: 4312, name: 'class-assistant-backend.exe' },
      { pid: 7788, name: 'class-assistant-backend.exe' },
    ]);
    expect(
      parseTasklistCsv('INFO: No tasks are running which match the specified criteria.\r\n'),
    ).toEqual([]);
    expect(parseTasklistCsv('信息: 没有运行的任务匹配指定标准。\r\n')).toEqual([]);
    expect(taskkillCommand(4312, false)).toEqual({
      file: 'taskkill.exe',
      args: ['/PID', '4312', '/T'],
    });
    expect(taskkillCommand(4312, true)).toEqual({
      file: 'taskkill.exe',
      args: ['/PID', '4312', '/T', '/F'],
    });
    expect(taskkillByTitleCommand('ClassAssistant-Backend')).toEqual({
      file: 'taskkill.exe',
      args: ['/FI', 'WINDOWTITLE eq ClassAssistant-Backend', '/T', '/F'],
    });
  });
});

describe('macOS', () => {
  it('asks lsof for the listening process and ps for processes by name', () => {
    expect(lsofPortOwnersCommand(8765)).toEqual({
      file: 'lsof',
      args: ['-nP', '-iTCP:8765', '-sTCP:LISTEN', '-t'],
    });
    expect(parsePidLines('812\n')).toEqual([812]);
    expect(psCommand()).toEqual({ file: 'ps', args: ['-axo', 'pid=,comm='] });
    const ps = `    1 /sbin/launchd
  812 /Applications/Class Assistant/backend/class-assistant-backend
  813 /Applications/Class Assistant/class-assistant
  990 /usr/bin/class-assistant-backend-helper
`;
    expect(parsePsProcesses(ps, 'class-assistant-backend')).toEqual([
      {
        pid: 812,
        name: 'class-assistant-backend',
        path: '/Applications/Class Assistant/backend/class-assistant-backend',
      },
    ]);
  });

  it('asks lsof for the ports a process listens on, and ps for its user', () => {
    expect(lsofListeningPortsCommand(812)).toEqual({
      file: 'lsof',
      args: ['-nP', '-a', '-p', '812', '-iTCP', '-sTCP:LISTEN', '-Fn'],
    });
    expect(parseLsofPorts('p812\nf23\nn127.0.0.1:8765\nf24\nn[::1]:8765\nf25\nn*:18765\n')).toEqual(
      [8765, 18765],
    );
    expect(parseLsofPorts('')).toEqual([]);
    expect(psUidCommand(812)).toEqual({ file: 'ps', args: ['-o', 'uid=', '-p', '812'] });
  });
});

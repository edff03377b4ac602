// Finding the host processes of a shell command by a variable in their environment. Inside the
// sandbox a command sees its own PID namespace, so the pids it could report ($$, $!) mean nothing
// on the host; the tests give each command a tag through policy.shell.env instead and look for it
// in /proc/PID/environ, which works the same with and without the sandbox. Linux only.
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';

/** The variable the tests put in a command's environment. */
export const TAG_VARIABLE = 'AGENT_STD_TEST_TAG';

/** A fresh tag value. */
export const newTag = () => randomBytes(8).toString('hex');

/** Live host processes carrying `tag`, with their command lines (`sleep 60`). */
export async function taggedProcesses(tag: string): Promise<Map<number, string>> {
  const needle = Buffer.from(`${TAG_VARIABLE}=${tag}\0`);
  const found = new Map<number, string>();
  await Promise.all(
    (await readdir('/proc'))
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        try {
          const environ = await readFile(`/proc/${name}/environ`);
          const at = environ.indexOf(needle);
          if (at === -1 || (at > 0 && environ[at - 1] !== 0)) return;
          const commandLine = (await readFile(`/proc/${name}/cmdline`, 'utf8')).split('\0');
          // An exiting process has no command line left: it is as good as gone.
          if (commandLine.join('') !== '') found.set(Number(name), commandLine.join(' ').trim());
        } catch {
          // gone, or a zombie
        }
      }),
  );
  return found;
}

/**
 * Records every process carrying `tag` until `stop()` is called (polling /proc), so a test can
 * check that what a command started existed, and later that all of it is gone.
 */
export function watchTagged(tag: string): { stop(): Promise<Map<number, string>> } {
  const seen = new Map<number, string>();
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const [pid, commandLine] of await taggedProcesses(tag)) seen.set(pid, commandLine);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return seen;
    },
  };
}

/** Waits until a process running `commandLine` shows up among those carrying `tag`. */
export async function waitForTagged(tag: string, commandLine: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    if ([...(await taggedProcesses(tag)).values()].includes(commandLine)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no process "${commandLine}" carrying the tag appeared`);
}

/** True once no process carrying `tag` is alive (checked for up to 5 s). */
export async function allTaggedGone(tag: string): Promise<boolean> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if ((await taggedProcesses(tag)).size === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

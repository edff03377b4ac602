import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createPacketizer,
  pacePackets,
  packetBytes,
  pcmBytesPerMs,
  splitPcm,
} from './audio-packets.ts';
import { isAsrProtocolError } from './errors.ts';

const pcm = (bytes: number) => new Uint8Array(bytes).map((_, index) => index % 256);

describe('packet sizes', () => {
  it('is 6400 bytes for the default 200 ms of 16 kHz mono, 12800 for stereo', () => {
    expect(packetBytes()).toBe(6400);
    expect(packetBytes({ channels: 2 })).toBe(12800);
    expect(packetBytes({ packetMs: 100 })).toBe(3200);
    expect(packetBytes({ packetMs: 0.1 })).toBe(4);
    expect(pcmBytesPerMs({ channels: 2 })).toBe(64);
  });

  it.each([0, -5, Number.NaN, 0.01])('refuses packetMs %s', (packetMs) => {
    try {
      packetBytes({ packetMs });
      expect.unreachable();
    } catch (error) {
      expect(isAsrProtocolError(error) && error.code).toBe('ASR_INVALID_OPTIONS');
      expect((error as Error).message).toMatch(/^packetMs: /);
    }
  });
});

describe('splitPcm', () => {
  it('cuts into packets of N ms, the last one shorter, without copying', () => {
    const audio = pcm(6400 * 2 + 100);
    const packets = splitPcm(audio);
    expect(packets.map((packet) => packet.byteLength)).toEqual([6400, 6400, 100]);
    expect(packets[1]?.buffer).toBe(audio.buffer);
    expect(Buffer.concat(packets)).toEqual(Buffer.from(audio));
    expect(splitPcm(new Uint8Array(0))).toEqual([]);
    expect(splitPcm(pcm(9600), { packetMs: 100 })).toHaveLength(3);
  });
});

describe('createPacketizer', () => {
  it('re-cuts odd-sized chunks into exact packets and flushes the rest', () => {
    const packetizer = createPacketizer({ packetMs: 10 }); // 320 bytes
    const audio = pcm(1000);
    const out: Uint8Array[] = [];
    for (let offset = 0; offset < audio.byteLength; offset += 77) {
      out.push(...packetizer.push(audio.subarray(offset, offset + 77)));
    }
    expect(out.map((packet) => packet.byteLength)).toEqual([320, 320, 320]);
    expect(packetizer.pending).toBe(40);
    const rest = packetizer.flush();
    expect(rest?.byteLength).toBe(40);
    expect(packetizer.flush()).toBeUndefined();
    expect(Buffer.concat([...out, rest as Uint8Array])).toEqual(Buffer.from(audio));
  });

  it('returns packets that stay intact when the source buffer is reused', () => {
    const packetizer = createPacketizer({ packetMs: 10 });
    const buffer = new Uint8Array(320).fill(1);
    const [first] = packetizer.push(buffer);
    buffer.fill(2);
    expect(first?.every((byte) => byte === 1)).toBe(true);
  });
});

describe('pacePackets', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('releases packet k after the audio before it has played (no drift)', async () => {
    vi.useFakeTimers();
    const released: number[] = [];
    const start = performance.now();
    const done = (async () => {
      for await (const packet of pacePackets(splitPcm(pcm(6400 * 4)))) {
        released.push(Math.round(performance.now() - start));
        expect(packet.byteLength).toBe(6400);
      }
    })();
    await vi.advanceTimersByTimeAsync(1000);
    await done;
    expect(released).toEqual([0, 200, 400, 600]);
  });

  it('paces by duration: stereo packets take as long as their audio', async () => {
    vi.useFakeTimers();
    const released: number[] = [];
    const start = performance.now();
    const done = (async () => {
      for await (const _ of pacePackets([pcm(3200 * 2), pcm(3200 * 2), pcm(64)], { channels: 2 })) {
        released.push(Math.round(performance.now() - start));
      }
    })();
    await vi.advanceTimersByTimeAsync(1000);
    await done;
    expect(released).toEqual([0, 100, 200]);
  });

  it('passes packets through at once when realtime is false', async () => {
    vi.useFakeTimers();
    const start = performance.now();
    const packets: Uint8Array[] = [];
    for await (const packet of pacePackets(splitPcm(pcm(6400 * 10)), { realtime: false }))
      packets.push(packet);
    expect(packets).toHaveLength(10);
    expect(performance.now() - start).toBe(0);
  });

  it('stops on abort with ASR_ABORTED carrying the reason', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const got: Uint8Array[] = [];
    const done = (async () => {
      for await (const packet of pacePackets(splitPcm(pcm(6400 * 10)), {
        signal: controller.signal,
      }))
        got.push(packet);
    })();
    await vi.advanceTimersByTimeAsync(450);
    controller.abort(new Error('user stopped'));
    await expect(done).rejects.toMatchObject({
      code: 'ASR_ABORTED',
      cause: new Error('user stopped'),
    });
    expect(got).toHaveLength(3);
  });

  it('stops between packets when not pacing, too', async () => {
    const controller = new AbortController();
    let count = 0;
    await expect(
      (async () => {
        for await (const _ of pacePackets(splitPcm(pcm(6400 * 5)), {
          realtime: false,
          signal: controller.signal,
        })) {
          count += 1;
          if (count === 2) controller.abort();
        }
      })(),
    ).rejects.toMatchObject({ code: 'ASR_ABORTED' });
    expect(count).toBe(2);
  });

  it('takes async sources', async () => {
    async function* source() {
      yield pcm(32);
      yield pcm(32);
    }
    const out: Uint8Array[] = [];
    for await (const packet of pacePackets(source(), { realtime: false })) out.push(packet);
    expect(out).toHaveLength(2);
  });
});

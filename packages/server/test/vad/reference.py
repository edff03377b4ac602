#!/usr/bin/env python3
"""Reference of Python SpeechRecognition's energy VAD, for the TypeScript port's test vectors.

SpeechRecognition (Uberi/speech_recognition, Recognizer.listen and
Recognizer.adjust_for_ambient_noise) cannot be installed here, so this file re-states its
algorithm with the standard library only, as a test oracle. It follows the library's control flow
literally, including its float arithmetic:

- a "buffer" is CHUNK samples; seconds_per_buffer = CHUNK / SAMPLE_RATE;
- pause, phrase and non-speaking buffer counts are int(math.ceil(seconds / seconds_per_buffer));
- energy is audioop.rms of the buffer (floor of the root mean square, 0 for an empty buffer);
- while waiting for speech, the last non_speaking buffers are kept; a buffer whose energy exceeds
  the threshold starts the phrase, otherwise (dynamic threshold on) the threshold moves towards
  energy * ratio with damping ** seconds_per_buffer;
- during a phrase, elapsed time is checked against phrase_time_limit BEFORE reading a buffer (the
  buffer is then left for the next listen call); a buffer above the threshold resets the pause
  count, one below increments it; more than pause_buffer_count quiet buffers end the phrase;
- a phrase with fewer than phrase_buffer_count speaking buffers (pauses excluded) is dropped and
  waiting starts again with no retained buffers; at the end of the stream whatever was collected
  is returned;
- pause_count - non_speaking_buffer_count trailing buffers are removed.

`listen_all` calls listen() until the stream ends, as listen_in_background does without a
timeout. The audio it returns at the end of the stream while still waiting for speech (the
retained quiet buffers) is marked "end-of-stream-silence": the server never transcribes it.

Usage: python3 reference.py   (rewrites the vector files next to this script)
"""

import hashlib
import json
import math
import os
import struct
import sys
import wave

try:
    import audioop  # Python <= 3.12

    def rms(buffer):
        return audioop.rms(buffer, 2)
except ImportError:  # pragma: no cover - same arithmetic as CPython's audioop.rms for width 2

    def rms(buffer):
        count = len(buffer) // 2
        if count == 0:
            return 0
        total = 0.0
        for (value,) in struct.iter_unpack("<h", buffer):
            total += float(value) * float(value)
        return int(math.sqrt(total / count))


HERE = os.path.dirname(os.path.abspath(__file__))


class BufferStream:
    """Reads CHUNK-sample buffers from PCM s16le mono bytes, like AudioFile's stream."""

    def __init__(self, pcm, chunk):
        self.pcm = pcm
        self.chunk = chunk
        self.position = 0  # in bytes
        self.index = 0  # buffers read so far

    def read(self):
        start = self.position
        buffer = self.pcm[start : start + self.chunk * 2]
        self.position += len(buffer)
        index = self.index
        if len(buffer) > 0:
            self.index += 1
        return index, start // 2, buffer


class Listener:
    def __init__(self, sample_rate, chunk, options, trace):
        self.sample_rate = sample_rate
        self.chunk = chunk
        self.energy_threshold = options["energy_threshold"]
        self.dynamic_energy_threshold = options["dynamic_energy_threshold"]
        self.dynamic_energy_adjustment_damping = options["dynamic_energy_adjustment_damping"]
        self.dynamic_energy_ratio = options["dynamic_energy_ratio"]
        self.pause_threshold = options["pause_threshold"]
        self.phrase_threshold = options["phrase_threshold"]
        self.non_speaking_duration = options["non_speaking_duration"]
        self.phrase_time_limit = options["phrase_time_limit"]
        self.trace = trace

    def read(self, stream):
        return stream.read()

    def record(self, index, energy, state):
        self.trace.append([index, energy, self.energy_threshold, state])

    def adjust_for_ambient_noise(self, stream, duration):
        seconds_per_buffer = (self.chunk + 0.0) / self.sample_rate
        elapsed_time = 0
        while True:
            elapsed_time += seconds_per_buffer
            if elapsed_time > duration:
                break
            index, _, buffer = self.read(stream)
            energy = rms(buffer)
            damping = self.dynamic_energy_adjustment_damping ** seconds_per_buffer
            target_energy = energy * self.dynamic_energy_ratio
            self.energy_threshold = self.energy_threshold * damping + target_energy * (1 - damping)
            if len(buffer) > 0:
                self.record(index, energy, "calibrating")

    def listen(self, stream):
        """One Recognizer.listen call; returns (frames, reason) or None at the end of the stream."""
        assert self.pause_threshold >= self.non_speaking_duration >= 0
        seconds_per_buffer = float(self.chunk) / self.sample_rate
        pause_buffer_count = int(math.ceil(self.pause_threshold / seconds_per_buffer))
        phrase_buffer_count = int(math.ceil(self.phrase_threshold / seconds_per_buffer))
        non_speaking_buffer_count = int(math.ceil(self.non_speaking_duration / seconds_per_buffer))

        elapsed_time = 0
        buffer = b""
        triggered = False
        while True:
            frames = []
            triggered = False
            while True:
                elapsed_time += seconds_per_buffer
                index, offset, buffer = self.read(stream)
                if len(buffer) == 0:
                    break
                frames.append((index, offset, buffer))
                if len(frames) > non_speaking_buffer_count:
                    frames.pop(0)
                energy = rms(buffer)
                if energy > self.energy_threshold:
                    self.record(index, energy, "speech-start")
                    triggered = True
                    break
                if self.dynamic_energy_threshold:
                    damping = self.dynamic_energy_adjustment_damping ** seconds_per_buffer
                    target_energy = energy * self.dynamic_energy_ratio
                    self.energy_threshold = (
                        self.energy_threshold * damping + target_energy * (1 - damping)
                    )
                self.record(index, energy, "waiting")

            pause_count, phrase_count = 0, 0
            phrase_start_time = elapsed_time
            reason = "end-of-stream"
            while True:
                elapsed_time += seconds_per_buffer
                if self.phrase_time_limit and elapsed_time - phrase_start_time > self.phrase_time_limit:
                    # The library breaks before reading; the next buffer belongs to the next call.
                    reason = "time-limit"
                    break
                index, offset, buffer = self.read(stream)
                if len(buffer) == 0:
                    break
                frames.append((index, offset, buffer))
                phrase_count += 1
                energy = rms(buffer)
                if energy > self.energy_threshold:
                    pause_count = 0
                else:
                    pause_count += 1
                self.record(index, energy, "phrase")
                if pause_count > pause_buffer_count:
                    reason = "pause"
                    break

            phrase_count -= pause_count
            if phrase_count >= phrase_buffer_count or len(buffer) == 0:
                break
            self.trace.append(["dropped", frames[0][0], frames[-1][0] + 1])

        for _ in range(pause_count - non_speaking_buffer_count):
            frames.pop()
        if len(frames) == 0:
            return None
        if not triggered:
            reason = "end-of-stream-silence"
        return frames, reason

    def listen_all(self, stream):
        phrases = []
        while True:
            if reason_end(stream):
                break
            result = self.listen(stream)
            if result is None:
                break
            frames, reason = result
            first = frames[0]
            last = frames[-1]
            pcm = b"".join(buffer for _, _, buffer in frames)
            phrases.append(
                {
                    "start_buffer": first[0],
                    "end_buffer": last[0] + 1,
                    "start_sample": first[1],
                    "end_sample": last[1] + len(last[2]) // 2,
                    "reason": reason,
                    "sha256": hashlib.sha256(pcm).hexdigest(),
                }
            )
            if reason in ("end-of-stream", "end-of-stream-silence"):
                break
        return phrases


def reason_end(stream):
    return stream.position >= len(stream.pcm)


# --- deterministic test signals (integer arithmetic only, rebuilt identically in TypeScript) ---


def xorshift32(state):
    state ^= (state << 13) & 0xFFFFFFFF
    state ^= state >> 17
    state ^= (state << 5) & 0xFFFFFFFF
    return state & 0xFFFFFFFF


def generate(segments, seed):
    """segments: [kind, samples, amplitude, period?]; kinds: noise, tone (square wave + noise)."""
    state = seed
    out = bytearray()
    for segment in segments:
        kind, count, amplitude = segment[0], segment[1], segment[2]
        noise_amplitude = segment[4] if len(segment) > 4 else 40
        for n in range(count):
            state = xorshift32(state)
            centred = (state & 0xFFFF) - 32768
            if kind == "noise":
                value = (centred * amplitude) >> 15
            else:
                period = segment[3]
                square = amplitude if (n // (period // 2)) % 2 == 0 else -amplitude
                value = square + ((centred * noise_amplitude) >> 15)
            value = max(-32768, min(32767, value))
            out += struct.pack("<h", value)
    return bytes(out)


def read_wav(path):
    with wave.open(path, "rb") as wav:
        assert wav.getsampwidth() == 2 and wav.getnchannels() == 1
        return wav.getframerate(), wav.readframes(wav.getnframes())


SEED_OPTIONS = {
    "energy_threshold": 220,
    "dynamic_energy_threshold": True,
    "dynamic_energy_adjustment_damping": 0.15,
    "dynamic_energy_ratio": 1.5,
    "pause_threshold": 0.9,
    "phrase_threshold": 0.35,
    "non_speaking_duration": 0.45,
    "phrase_time_limit": 15,
}

SCENARIOS = [
    {
        "name": "seed-defaults",
        "description": "the seed's values, 100 ms buffers at 16 kHz: two tones joined across a short pause, a click dropped, slowly rising noise followed by the threshold, a phrase cut by the end of the stream",
        "sample_rate": 16000,
        "chunk": 1600,
        "calibration_seconds": 0,
        "options": SEED_OPTIONS,
        "signal": {
            "seed": 2463534242,
            "segments": [
                ["noise", 16000, 60],
                ["tone", 19200, 3000, 64],
                ["noise", 4800, 60],
                ["tone", 12800, 2500, 80],
                ["noise", 24000, 60],
                ["tone", 1600, 5000, 40],
                ["noise", 19200, 60],
                ["tone", 8000, 2000, 100],
                ["noise", 19200, 60],
                ["noise", 12800, 66],
                ["noise", 12800, 73],
                ["noise", 12800, 80],
                ["noise", 12800, 88],
                ["noise", 12800, 97],
                ["noise", 12800, 107],
                ["noise", 12800, 118],
                ["noise", 12800, 130],
                ["tone", 9600, 1800, 60, 130],
                ["noise", 24000, 130],
                ["tone", 32000, 2200, 72, 130],
            ],
        },
    },
    {
        "name": "calibrated",
        "description": "adjust_for_ambient_noise(duration=1) on loud noise, then listen; a quiet phrase stays below the calibrated threshold, a loud one is heard",
        "sample_rate": 16000,
        "chunk": 1600,
        "calibration_seconds": 1,
        "options": SEED_OPTIONS,
        "signal": {
            "seed": 88172645,
            "segments": [
                ["noise", 16000, 900],
                ["noise", 8000, 700],
                ["tone", 8000, 500, 64, 700],
                ["noise", 24000, 700],
                ["tone", 16000, 4000, 64, 700],
                ["noise", 24000, 700],
            ],
        },
    },
    {
        "name": "time-limit",
        "description": "1024-sample buffers (the library's default chunk), a 2 s phrase_time_limit, static threshold: a 5 s tone is cut into pieces",
        "sample_rate": 16000,
        "chunk": 1024,
        "calibration_seconds": 0,
        "options": dict(
            SEED_OPTIONS,
            energy_threshold=300,
            dynamic_energy_threshold=False,
            pause_threshold=0.5,
            non_speaking_duration=0.3,
            phrase_threshold=0.3,
            phrase_time_limit=2,
        ),
        "signal": {
            "seed": 362436069,
            "segments": [
                ["noise", 8000, 50],
                ["tone", 80000, 2500, 64],
                ["noise", 12000, 50],
                ["tone", 3000, 2500, 64],
                ["noise", 9000, 50],
            ],
        },
    },
    {
        "name": "speech",
        "description": "espeak-ng speech over a room-noise floor at 8 kHz (test/vad/speech-8k.wav), the seed's values, 0.5 s calibration",
        "sample_rate": 8000,
        "chunk": 800,
        "calibration_seconds": 0.5,
        "options": SEED_OPTIONS,
        "wav": "speech-8k.wav",
    },
]


def run(scenario):
    if "wav" in scenario:
        rate, pcm = read_wav(os.path.join(HERE, scenario["wav"]))
        assert rate == scenario["sample_rate"]
    else:
        pcm = generate(scenario["signal"]["segments"], scenario["signal"]["seed"])
    trace = []
    listener = Listener(scenario["sample_rate"], scenario["chunk"], scenario["options"], trace)
    stream = BufferStream(pcm, scenario["chunk"])
    if scenario["calibration_seconds"]:
        listener.adjust_for_ambient_noise(stream, scenario["calibration_seconds"])
    phrases = listener.listen_all(stream)
    vector = {key: value for key, value in scenario.items()}
    vector["pcm_sha256"] = hashlib.sha256(pcm).hexdigest()
    vector["samples"] = len(pcm) // 2
    vector["trace"] = trace
    vector["phrases"] = phrases
    vector["final_threshold"] = listener.energy_threshold
    return vector


def main():
    for scenario in SCENARIOS:
        vector = run(scenario)
        path = os.path.join(HERE, "vectors", scenario["name"] + ".json")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            json.dump(vector, handle, indent=1)
            handle.write("\n")
        summary = ", ".join(
            "{}-{} {}".format(p["start_buffer"], p["end_buffer"], p["reason"]) for p in vector["phrases"]
        )
        print("{}: {} buffers, phrases: {}".format(scenario["name"], len(vector["trace"]), summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())

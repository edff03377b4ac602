// Entry of the microphone child process (see src/audio/audio-child.ts). tsup builds it as its own
// entry so the published package can spawn dist/audio-child.js.
import { runAudioChild } from './audio/audio-child.ts';

const code = await runAudioChild(process.argv);
if (process.connected) process.disconnect();
// PortAudio's threads may linger after the stream is closed: leave once the last message is out.
setTimeout(() => process.exit(code), 50);

import { chromium } from 'playwright-core';
import http from 'node:http';
const server = http.createServer((q, r) => { r.setHeader('content-type','text/html'); r.end('<html><body>x</body></html>'); }).listen(0, '127.0.0.1');
await new Promise(r => server.once('listening', r));
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu','--use-fake-ui-for-media-stream','--use-fake-device-for-media-stream','--use-file-for-fake-audio-capture=/tmp/capx/speech.wav%noloop','--autoplay-policy=no-user-gesture-required'] });
const page = await browser.newPage();
page.on('console', m => console.log('console', m.text()));
await page.goto(url);
const result = await page.evaluate(async () => {
  const devices0 = await navigator.mediaDevices.enumerateDevices();
  const stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false } });
  const track = stream.getAudioTracks()[0];
  const ctx = new AudioContext();
  const src = ctx.createMediaStreamSource(stream);
  const an = ctx.createAnalyser(); an.fftSize = 2048;
  src.connect(an);
  const buf = new Float32Array(2048);
  const levels = [];
  for (let i = 0; i < 40; i++) { await new Promise(r => setTimeout(r, 100)); an.getFloatTimeDomainData(buf); let s=0; for (const v of buf) s+=v*v; levels.push(Math.round(Math.sqrt(s/buf.length)*1000)); }
  return { rate: ctx.sampleRate, state: ctx.state, label: track.label, settings: track.getSettings(), devices: devices0.map(d => d.kind+':'+d.label), levels, ready: track.readyState };
});
console.log(JSON.stringify(result));
await browser.close(); server.close();

// What an alert does beyond the bar: a short sound (Web Audio, no sound file to ship), a system
// notification and a blinking window title. Each kind of alert (called, someone else's roll
// call, attention) sounds and looks different; someone else's roll call notifies nobody.
import { ALERT_TITLES, type AlertKind } from './alert-kind.ts';
import { joinList, t } from './i18n.ts';

let audio: AudioContext | undefined;

/** The audio context, created on first use. Browsers start it suspended until a user gesture
 * (the launcher's app window allows autoplay); {@link unlockAudio} resumes it on the first click. */
function context(): AudioContext | undefined {
  if (typeof AudioContext === 'undefined') return undefined;
  audio ??= new AudioContext();
  return audio;
}

/** Resumes audio on the first user gesture, so a later alert can ring. */
export function unlockAudio(target: EventTarget): void {
  const unlock = () => {
    void context()?.resume();
  };
  for (const name of ['pointerdown', 'keydown']) {
    target.addEventListener(name, unlock, { once: true, capture: true });
  }
}

/** The notes of each alert sound: [frequency Hz, start s, length s]. */
const ALERT_TONES: Record<AlertKind, Array<[number, number, number]>> = {
  // Called: three quick high beeps and a higher one — hard to miss.
  'for-you': [
    [880, 0, 0.12],
    [880, 0.18, 0.12],
    [880, 0.36, 0.12],
    [1320, 0.54, 0.3],
  ],
  // Someone else's roll call: one low soft note, enough to look up.
  'roll-call': [[523, 0, 0.3]],
  // Attention: a soft rising two-note chime.
  attention: [
    [660, 0, 0.22],
    [880, 0.2, 0.4],
  ],
};

/** Plays the alert sound of `kind`. Returns false when audio is unavailable. */
export function playAlertSound(kind: AlertKind): boolean {
  let audioContext: AudioContext | undefined;
  try {
    audioContext = context();
  } catch {
    return false;
  }
  if (!audioContext) return false;
  void audioContext.resume();
  const now = audioContext.currentTime + 0.02;
  for (const [frequency, start, length] of ALERT_TONES[kind]) {
    const oscillator = audioContext.createOscillator();
    const gain = audioContext.createGain();
    oscillator.type = kind === 'for-you' ? 'square' : 'sine';
    oscillator.frequency.value = frequency;
    const peak = { 'for-you': 0.12, 'roll-call': 0.08, attention: 0.2 }[kind];
    gain.gain.setValueAtTime(0.0001, now + start);
    gain.gain.exponentialRampToValueAtTime(peak, now + start + 0.015);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    oscillator.connect(gain).connect(audioContext.destination);
    oscillator.start(now + start);
    oscillator.stop(now + start + length + 0.05);
  }
  return true;
}

/** A round badge for the notification icon: red "!" when called, amber "i" for attention. */
function badge(called: boolean): string | undefined {
  try {
    const canvas = document.createElement('canvas');
    canvas.width = 96;
    canvas.height = 96;
    const draw = canvas.getContext('2d');
    if (!draw) return undefined;
    draw.fillStyle = called ? '#e5383b' : '#f0a202';
    draw.beginPath();
    draw.arc(48, 48, 44, 0, Math.PI * 2);
    draw.fill();
    draw.fillStyle = '#fff';
    draw.font = 'bold 64px sans-serif';
    draw.textAlign = 'center';
    draw.textBaseline = 'middle';
    draw.fillText(called ? '!' : 'i', 48, 52);
    return canvas.toDataURL('image/png');
  } catch {
    return undefined;
  }
}

/** The notification permission, or 'unsupported'. */
export function notificationPermission(): NotificationPermission | 'unsupported' {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

/** Asks for permission to notify (once; the browser remembers the answer). */
export async function requestNotificationPermission(): Promise<
  NotificationPermission | 'unsupported'
> {
  if (typeof Notification === 'undefined') return 'unsupported';
  if (Notification.permission !== 'default') return Notification.permission;
  try {
    return await Notification.requestPermission();
  } catch {
    return Notification.permission;
  }
}

/**
 * Raises a system notification for an alert the student is called by (`for-you`) or should
 * attend to; clicking it brings the window forward.
 */
export function notifyAlert(
  kind: Exclude<AlertKind, 'roll-call'>,
  keywords: string[],
  text: string,
): boolean {
  if (notificationPermission() !== 'granted') return false;
  const called = kind === 'for-you';
  const title = `${called ? '🔴' : '🟡'} ${t(ALERT_TITLES[kind])}`;
  const headline = t(called ? 'alertDangerBody' : 'alertWarningBody', {
    keywords: joinList(keywords),
  });
  const icon = badge(called);
  const level = called ? 'danger' : 'warning';
  try {
    const notification = new Notification(title, {
      body: `${headline}\n${text}`,
      tag: `class-assistant-${level}`,
      requireInteraction: called,
      silent: true,
      ...(icon ? { icon } : {}),
    });
    notification.addEventListener('click', () => {
      window.focus();
      notification.close();
    });
    return true;
  } catch {
    // Some systems refuse page notifications outright; the bar still flashes and rings.
    return false;
  }
}

let titleTimer: ReturnType<typeof setInterval> | undefined;

/** Blinks the window title (taskbar) until {@link stopTitleBlink}. */
export function blinkTitle(kind: AlertKind, base: string): void {
  stopTitleBlink(base);
  const marker = `【${t(ALERT_TITLES[kind])}】`;
  let on = false;
  titleTimer = setInterval(() => {
    on = !on;
    document.title = on ? `${marker} ${base}` : base;
  }, 800);
}

/** Restores the window title. */
export function stopTitleBlink(base: string): void {
  clearInterval(titleTimer);
  titleTimer = undefined;
  document.title = base;
}

/**
 * Why a class could not start, in the student's language. A failure already written for the
 * student in both languages stays as it is; any other keeps its code, field and hint, says what
 * happened and what to do in both languages, and moves its own words (a system's or a library's
 * text) to `technical`, for a "details" view. A {@link ServerError} of this backend (not
 * localized, but written for the student: it names the setting or file that is wrong and what to
 * do, e.g. "MOCK_SCRIPT points to …, which is not a readable file.") keeps those words after the
 * localized sentence too, unless that sentence already names the setting.
 */
import { isServerError, ServerError, type ServerErrorCode } from '../errors.ts';
import { type Localized, localized } from '../language.ts';

/** What each start failure means for the student, and what to do. */
const MEANINGS: Partial<Record<ServerErrorCode, (mode: string) => Localized>> = {
  ASR_MODEL_MISSING: () =>
    localized(
      '找不到可用的识别模型，无法开始上课。请在课堂面板下载一个模型，或在设置里检查模型文件夹。',
      'No usable recognition model was found, so the class cannot start. Download a model in the class panel, or check the model folder in the settings.',
    ),
  AUDIO_DEVICE_UNAVAILABLE: () =>
    localized(
      '麦克风无法使用，无法开始上课。请接上麦克风并允许本应用使用后重试，或切换到演示模式。',
      'The microphone cannot be used, so the class cannot start. Connect a microphone, let the app use it and try again, or use the demo mode.',
    ),
  AUDIO_INPUT_INVALID: () =>
    localized(
      '音频输入设置（AUDIO_INPUT）不能用，无法开始上课。请在设置里把它改为 mic（麦克风）或一个录音文件（MP3、M4A、WAV 等）。',
      'The audio input setting (AUDIO_INPUT) cannot be used, so the class cannot start. Set it to mic (the microphone) or a recording (MP3, M4A, WAV, ...) in the settings.',
    ),
  NATIVE_MODULE_MISSING: (mode) =>
    localized(
      `这台电脑缺少识别方式 ${mode} 需要的组件，无法开始上课。请在设置里换一种识别方式，或切换到演示模式。`,
      `A component recognition mode ${mode} needs is missing on this computer, so the class cannot start. Pick another recognition mode in the settings, or use the demo mode.`,
    ),
  RECOGNIZER_UNAVAILABLE: (mode) =>
    localized(
      `识别方式 ${mode} 在这台电脑上无法运行。请在设置里换一种识别方式，或切换到演示模式。`,
      `Recognition mode ${mode} cannot run on this computer. Pick another recognition mode in the settings, or use the demo mode.`,
    ),
  RECOGNIZER_FAILED: (mode) =>
    localized(
      `识别方式 ${mode} 没能启动。请检查设置后重试，或切换到演示模式。`,
      `Recognition mode ${mode} could not start. Check the settings and try again, or use the demo mode.`,
    ),
};

/**
 * The error start_monitor answers for `error`, thrown while the recognizer of `mode` was checked
 * or started; anything that is not a {@link ServerError} is a RECOGNIZER_FAILED.
 *
 * @example
 * startFailure(new Error('ALSA lib pcm.c: Unknown PCM'), 'local').code; // 'RECOGNIZER_FAILED'
 */
export function startFailure(error: unknown, mode: string): ServerError {
  if (isServerError(error) && error.localized) return error;
  const code = isServerError(error) ? error.code : 'RECOGNIZER_FAILED';
  const details = isServerError(error) ? error.details : { field: 'ASR_MODE' };
  // A mode that cannot run because of its audio input or its model is told as such.
  const field = details.field ?? '';
  const told =
    code !== 'RECOGNIZER_UNAVAILABLE'
      ? code
      : field === 'AUDIO_INPUT'
        ? 'AUDIO_INPUT_INVALID'
        : field.endsWith('_MODEL_PATH')
          ? 'ASR_MODEL_MISSING'
          : code;
  const meaning = MEANINGS[told] ?? MEANINGS.RECOGNIZER_FAILED!;
  const own = (error as Error)?.message ?? String(error);
  const general = meaning(mode);
  // Our own words name what is wrong (which setting, which file) and what to do: losing them
  // would leave "pick another mode" where one setting needs fixing.
  const specific = isServerError(error) && told !== 'AUDIO_INPUT_INVALID' && own.trim() !== '';
  return new ServerError(
    code,
    specific ? localized(`${general.zh}原因：${own}`, `${general.en} Why: ${own}`) : general,
    { ...details, technical: details.technical ?? own },
    { cause: error },
  );
}

// Drop a recording anywhere on the window (the bar and every panel): while a file is dragged over
// it the window says "drop to import the recording"; the dropped file goes to the class panel's
// import form. A drop an element takes itself (the material box) is left to it. While the app is
// in the always-on-top (Picture-in-Picture) window, a drop there works the same.
import { useEffect, useState } from 'preact/hooks';
import { Icon } from '../components/icon.tsx';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import { pipWindow } from '../window.ts';

/** True when the drag carries files (not text or a link). */
function carriesFiles(event: DragEvent): boolean {
  return [...(event.dataTransfer?.types ?? [])].includes('Files');
}

/** The drop target over the whole window. */
export function RecordingDrop() {
  const app = useApp();
  const pinned = app.store.use('pinned').value;
  const [over, setOver] = useState(false);
  useEffect(() => {
    const onDragOver = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      // An element under the pointer that takes files itself has said so: it shows its own target.
      if (event.defaultPrevented) {
        setOver(false);
        return;
      }
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
      setOver(true);
    };
    const onDragLeave = (event: DragEvent) => {
      // Out of the window: nothing under the pointer any more.
      if (event.relatedTarget === null) setOver(false);
    };
    const onDrop = (event: DragEvent) => {
      setOver(false);
      if (event.defaultPrevented || !carriesFiles(event)) return;
      // Never let the browser open the file in place of the app.
      event.preventDefault();
      const file = event.dataTransfer?.files[0];
      if (file) app.pickRecording(file);
    };
    const onDragEnd = () => setOver(false);
    // Events stay in their own window's document: the main one, and the floating one while open.
    const pip = pinned ? pipWindow()?.document : undefined;
    const documents = pip ? [document, pip] : [document];
    const handlers = [
      ['dragenter', onDragOver],
      ['dragover', onDragOver],
      ['dragleave', onDragLeave],
      ['drop', onDrop],
      ['dragend', onDragEnd],
    ] as const;
    for (const target of documents) {
      for (const [type, handler] of handlers) target.addEventListener(type, handler);
    }
    return () => {
      for (const target of documents) {
        for (const [type, handler] of handlers) target.removeEventListener(type, handler);
      }
    };
  }, [pinned]);
  return (
    <div class="recording-drop" hidden={!over} aria-hidden="true">
      <Icon name="upload" />
      <span>{t('importDropHere')}</span>
    </div>
  );
}

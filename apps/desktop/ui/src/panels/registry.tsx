// The panels of the 480x520 window, in tab order: the one list the tabs, the shortcuts and the
// app read.
import type { ComponentType } from 'preact';
import { Legacy, type LegacyView } from '../components/legacy.tsx';
import type { AppContext } from '../context.ts';
import type { TextKey } from '../i18n.ts';
import type { PanelName } from '../store.ts';
import { createAskPanel } from './ask-panel.ts';
import { createCatchupPanel } from './catchup-panel.ts';
import { ClassPanel } from './class-panel.tsx';
import { KeywordsPanel } from './keywords-panel.tsx';
import { LibraryPanel } from './library-panel.tsx';
import { NotesPanel } from './notes-panel.tsx';
import { createRescuePanel } from './rescue-panel.ts';
import { SettingsPanel } from './settings-panel.tsx';
import { createTranscriptPanel } from './transcript-panel.ts';

/** What every panel component gets. */
export interface PanelProps {
  /** True while the panel is the one shown (load fresh data when it becomes true). */
  active: boolean;
}

/** One panel. */
export interface PanelEntry {
  id: PanelName;
  /** The tab's text. */
  title: TextKey;
  /**
   * The key that opens it (Alt+key anywhere, the key alone outside text fields): a letter, or
   * `,`.
   */
  shortcut: string;
  /** What the shortcut does, when more than opening or closing the panel. */
  onShortcut?(app: AppContext): void;
  component: ComponentType<PanelProps>;
}

// ------------------------------------------------------------------ panels not yet components
function legacy(create: (app: AppContext) => LegacyView) {
  return ({ active }: PanelProps) => <Legacy create={create} active={active} />;
}
const rescueLegacy = (app: AppContext): LegacyView => {
  const panel = createRescuePanel(app);
  let seen = app.requests.rescue.peek();
  const dispose = app.requests.rescue.subscribe((serial) => {
    if (serial !== seen) panel.run();
    seen = serial;
  });
  return { ...panel, dispose };
};
const catchupLegacy = (app: AppContext): LegacyView => {
  const panel = createCatchupPanel(app);
  let seen = app.requests.catchup.peek();
  const dispose = app.requests.catchup.subscribe((serial) => {
    if (serial !== seen) panel.run();
    seen = serial;
  });
  return { ...panel, dispose };
};
const transcriptLegacy = (app: AppContext): LegacyView => {
  const panel = createTranscriptPanel(app);
  const dispose = app.requests.reveal.subscribe((request) => {
    if (request) panel.reveal(request.id);
  });
  return { ...panel, dispose };
};

/** The panels, in tab order. */
export const PANELS: readonly PanelEntry[] = [
  { id: 'class', title: 'tabClass', shortcut: 'm', component: ClassPanel },
  { id: 'transcript', title: 'tabTranscript', shortcut: 't', component: legacy(transcriptLegacy) },
  {
    id: 'rescue',
    title: 'tabRescue',
    shortcut: 'r',
    onShortcut: (app) => app.rescue(),
    component: legacy(rescueLegacy),
  },
  {
    id: 'catchup',
    title: 'tabCatchup',
    shortcut: 'c',
    onShortcut: (app) => app.catchup(),
    component: legacy(catchupLegacy),
  },
  { id: 'ask', title: 'tabAsk', shortcut: 'a', component: legacy(createAskPanel) },
  { id: 'notes', title: 'tabNotes', shortcut: 'n', component: NotesPanel },
  { id: 'library', title: 'tabLibrary', shortcut: 'l', component: LibraryPanel },
  { id: 'keywords', title: 'tabKeywords', shortcut: 'k', component: KeywordsPanel },
  { id: 'settings', title: 'tabSettings', shortcut: ',', component: SettingsPanel },
];

// The bar's buttons: icon-only ones, pills with a label that can give way, and "Got it".
import { Icon, type IconName } from '../components/icon.tsx';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';

/** An icon-only button; its name is in the tooltip and aria-label. */
export function IconButton(props: {
  name: IconName;
  label: string;
  class: string;
  onClick: () => void;
  hidden?: boolean;
  disabled?: boolean;
}) {
  return (
    <button
      type="button"
      class={`icon-button ${props.class}`}
      title={props.label}
      aria-label={props.label}
      hidden={props.hidden}
      disabled={props.disabled}
      onClick={props.onClick}
    >
      <Icon name={props.name} />
    </button>
  );
}

/** A pill with an icon and a label; the label can be hidden (the name stays in aria-label). */
export function PillButton(props: {
  name: IconName;
  label: string;
  shortcut: string;
  class: string;
  onClick: () => void;
  disabled?: boolean;
}) {
  return (
    <button
      type="button"
      class={`pill-button ${props.class}`}
      title={`${props.label} (${props.shortcut})`}
      aria-label={props.label}
      disabled={props.disabled}
      onClick={props.onClick}
    >
      <Icon name={props.name} />
      <span class="label">{props.label}</span>
    </button>
  );
}

/** "Got it": ends the alert (Esc does too). */
export function DismissButton({ class: extra = '' }: { class?: string }) {
  const app = useApp();
  return (
    <button
      type="button"
      class={`pill-button dismiss${extra}`}
      title={`${t('dismiss')} (Esc)`}
      onClick={() => app.dismissAlert()}
    >
      {t('dismiss')}
    </button>
  );
}

/**
 * Where the stored secrets go, and the rule that keeps a saved key from being sent to a host the
 * user did not type it for. Any local program can post settings: without this rule it could
 * point LLM_BASE_URL at itself and receive the stored LLM_API_KEY as a bearer token at the next
 * rescue. Which secret goes to which address comes from the definitions (`sentTo`, `fallback`).
 */
import { ServerError } from '../errors.ts';
import { type Localized, localized } from '../language.ts';
import {
  type ResolvedSettings,
  SETTING_DEFINITIONS,
  type SettingDefinition,
  settingDefinition,
} from './settings-schema.ts';

/** A secret as it is used: which main key its value comes from and where it is sent. */
export interface SecretDestination {
  /** The secret main key (e.g. CLOUD_ASR_API_KEY). */
  secret: string;
  /** The main key whose value is sent: the secret itself, or the key it falls back to. */
  source: string;
  /** The main key of the address (e.g. CLOUD_ASR_BASE_URL). */
  address: string;
  /** `scheme://host[:port]` the secret goes to. */
  origin: string;
}

/** A secret that a change would send somewhere new, and the key to type again to allow it. */
export interface SecretDestinationRefusal extends SecretDestination {
  field: string;
}

function originOf(address: string): string {
  try {
    const url = new URL(address);
    return `${url.protocol}//${url.host}`;
  } catch {
    return address;
  }
}

/** The secrets the settings send, each with the origin it goes to (empty secrets send nothing). */
export function secretDestinations(settings: ResolvedSettings): SecretDestination[] {
  const destinations: SecretDestination[] = [];
  const fields = settings as unknown as Record<string, unknown>;
  for (const definition of SETTING_DEFINITIONS as readonly SettingDefinition[]) {
    if (!definition.secret || !definition.sentTo) continue;
    const value = fields[definition.field];
    const address = settingDefinition(definition.sentTo);
    if (typeof value !== 'string' || value === '' || !address) continue;
    const own = settings.values[definition.key] ?? '';
    destinations.push({
      secret: definition.key,
      source: own === '' && definition.fallback ? definition.fallback : definition.key,
      address: address.key,
      origin: originOf(String(fields[address.field])),
    });
  }
  return destinations;
}

/**
 * The secrets a change from `before` to `after` would send to an origin their key was not sent
 * to before, unless the request typed that key (`typed`: main keys whose value was entered in
 * this request rather than kept from the stored file). A changed address, an address reached
 * through a fallback (CLOUD_ASR_BASE_URL empty: LLM_BASE_URL) and a secret reached through a
 * fallback (CLOUD_ASR_API_KEY emptied: LLM_API_KEY now goes to the cloud address) all count.
 *
 * @example
 * checkSecretDestinations(before, after, new Set()); // [{ field: 'LLM_API_KEY', … }] when LLM_BASE_URL moved
 */
export function checkSecretDestinations(
  before: ResolvedSettings,
  after: ResolvedSettings,
  typed: ReadonlySet<string>,
): SecretDestinationRefusal[] {
  const known = new Set(
    secretDestinations(before).map((destination) => `${destination.source} ${destination.origin}`),
  );
  const refusals: SecretDestinationRefusal[] = [];
  for (const destination of secretDestinations(after)) {
    if (typed.has(destination.source)) continue;
    if (known.has(`${destination.source} ${destination.origin}`)) continue;
    refusals.push({ ...destination, field: destination.source });
  }
  return refusals;
}

/**
 * The refusal of a save whose changed addresses would receive stored keys: one sentence per key
 * (however many addresses would send it), by its plain name and `nameOf(key)` (the name the
 * user's file gives it), saying to type it again, then once that nothing was changed.
 */
export function secretRequiredError(
  refusals: readonly SecretDestinationRefusal[],
  nameOf: (key: string) => string,
): ServerError {
  const byKey = new Map<string, SecretDestinationRefusal[]>();
  for (const refusal of refusals) {
    byKey.set(refusal.field, [...(byKey.get(refusal.field) ?? []), refusal]);
  }
  const sentences = [...byKey].map(([key, sent]): Localized => {
    const label = settingDefinition(key)?.label ?? localized(key, key);
    const origins = [...new Set(sent.map((refusal) => refusal.origin))].join(', ');
    // Said only when the key would go there in place of an empty one, and only that way.
    const instead = sent.every((refusal) => refusal.secret !== key) ? nameOf(sent[0]!.secret) : '';
    const space = /^[\x20-\x7e]/.test(label.zh) ? ' ' : '';
    return localized(
      `请在这次保存中重新填写${space}${label.zh}（${nameOf(key)}）：已保存的密钥不会发往新的地址 ${origins}${instead ? `（${instead} 为空时会用它）` : ''}。`,
      `Type the ${label.en} (${nameOf(key)}) again in this save: the stored one is not sent to a new address (${origins})${instead ? `, where it would go because ${instead} is empty` : ''}.`,
    );
  });
  const message = (sentence: Localized) =>
    localized(`${sentence.zh}设置没有改动。`, `${sentence.en} Nothing was changed.`);
  return new ServerError(
    'SETTINGS_SECRET_REQUIRED',
    message(
      localized(
        sentences.map((sentence) => sentence.zh).join(''),
        sentences.map((sentence) => sentence.en).join(' '),
      ),
    ),
    {
      field: refusals[0]?.field ?? '',
      fields: [...byKey.keys()].map((field, index) => ({
        field,
        message: message(sentences[index]!),
      })),
    },
  );
}

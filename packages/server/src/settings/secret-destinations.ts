/**
 * Where the stored secrets go, and the rule that keeps a saved key from being sent to a host the
 * user did not type it for. Any local program can post settings: without this rule it could
 * point LLM_BASE_URL at itself and receive the stored LLM_API_KEY as a bearer token at the next
 * rescue. Which secret goes to which address comes from the definitions (`sentTo`, `fallback`).
 */
import { localized } from '../language.ts';
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
  message: ReturnType<typeof localized>;
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
    const via =
      destination.source === destination.secret ? '' : `（${destination.secret} 为空时使用它）`;
    const viaEn =
      destination.source === destination.secret
        ? ''
        : ` (used because ${destination.secret} is empty)`;
    refusals.push({
      ...destination,
      field: destination.source,
      message: localized(
        `${destination.address} 会把已保存的 ${destination.source}${via}发往新的地址 ${destination.origin}：请在同一次保存中重新填写 ${destination.source}。设置没有改动。`,
        `${destination.address} would send the stored ${destination.source}${viaEn} to ${destination.origin}, where it was not sent before: type ${destination.source} again in the same save. Nothing was changed.`,
      ),
    });
  }
  return refusals;
}

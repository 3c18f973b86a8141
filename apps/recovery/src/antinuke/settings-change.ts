import { AUTO_ACTION_MODES, type AntiNukeSettings, type AutoActionMode } from './workflows/antinuke-contract';

/** What changing one field does to AntiNuke's protection. */
export type FieldChange = 'tightening' | 'loosening' | 'unchanged';

type FieldRule<T> = (before: T, after: T) => FieldChange;

/** Higher is stricter (a larger window catches a slower raid), or the reverse. */
function numeric(stricterWhen: 'higher' | 'lower'): FieldRule<number> {
  return (before, after) => {
    if (after === before) return 'unchanged';
    return after > before === (stricterWhen === 'higher') ? 'tightening' : 'loosening';
  };
}

/** A switch whose `true` protects more. */
const protectingSwitch: FieldRule<boolean> = (before, after) =>
  before === after ? 'unchanged' : after ? 'tightening' : 'loosening';

/** A list of people AntiNuke ignores: anyone added loosens it, whoever else changes. */
const exemptions: FieldRule<string[]> = (before, after) => {
  if (after.some((id) => !before.includes(id))) return 'loosening';
  return before.some((id) => !after.includes(id)) ? 'tightening' : 'unchanged';
};

/** What auto-action does to the actor, mildest first: a milder one lets a raider keep more. */
const autoActionMode: FieldRule<AutoActionMode> = (before, after) => {
  const [from, to] = [AUTO_ACTION_MODES.indexOf(before), AUTO_ACTION_MODES.indexOf(after)];
  if (from === to) return 'unchanged';
  return to > from ? 'tightening' : 'loosening';
};

/**
 * One rule per setting field. A raid is `threshold` actions within `window_seconds`: a higher
 * threshold or a narrower window lets a raider do more before AntiNuke notices.
 */
export const SETTING_FIELD_RULES: { [K in keyof AntiNukeSettings]: FieldRule<AntiNukeSettings[K]> } = {
  enabled: protectingSwitch,
  exempt_user_ids: exemptions,
  threshold: numeric('lower'),
  window_seconds: numeric('higher'),
  auto_action_enabled: protectingSwitch,
  auto_action_mode: autoActionMode,
  auto_lockdown_enabled: protectingSwitch,
};

export type SettingField = keyof AntiNukeSettings;

export interface SettingsChange {
  /** Each field's change, in SETTING_FIELD_RULES' order. */
  fields: Record<SettingField, FieldChange>;
  /** The fields that loosen the protection; a change loosens anything when this is not empty. */
  loosened: SettingField[];
  tightened: SettingField[];
}

/** Classifies each field of `after` against `before`. */
export function settingsChange(before: AntiNukeSettings, after: AntiNukeSettings): SettingsChange {
  const fields = {} as Record<SettingField, FieldChange>;
  for (const field of Object.keys(SETTING_FIELD_RULES) as SettingField[]) {
    const rule = SETTING_FIELD_RULES[field] as FieldRule<AntiNukeSettings[typeof field]>;
    fields[field] = rule(before[field], after[field]);
  }
  const having = (change: FieldChange) =>
    (Object.keys(fields) as SettingField[]).filter((field) => fields[field] === change);
  return { fields, loosened: having('loosening'), tightened: having('tightening') };
}

/** Platform user ids `after` exempts that `before` did not. */
export function newlyExempted(before: AntiNukeSettings, after: AntiNukeSettings): string[] {
  return after.exempt_user_ids.filter((id) => !before.exempt_user_ids.includes(id));
}

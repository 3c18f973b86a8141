import { AuditLogEvent, PermissionFlagsBits } from 'discord-api-types/v10';
import { changesOf } from '../audit-log';
import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import type { GuildChange } from '../guild-change';
import { meetsRequirements, readOnboarding } from '../onboarding-form';
import { platformError } from '../platform-error';
import { type FakeOnboarding, NO_ONBOARDING, onboardingWire } from '../welcome-flow';
import { type PlatformRoute, ok } from './platform-route';

/**
 * Discord's "Get Guild Onboarding" and "Modify Guild Onboarding" (resources/guild). Reading needs
 * membership only (the docs name no permission); modifying needs MANAGE_GUILD and MANAGE_ROLES and
 * answers 200 with the onboarding. The body is read by `../onboarding-form.ts`; enabling an
 * onboarding that misses the requirements is 350000, keeping an enabled one below them 350001
 * (topics/opcodes-and-status-codes).
 *
 * Audit log (resources/audit-log): ONBOARDING_CREATE the first time a guild's onboarding is set,
 * ONBOARDING_UPDATE after, with the changed `default_channel_ids`, `enabled` and `mode`; each prompt
 * added, changed or removed its own ONBOARDING_PROMPT_CREATE/UPDATE/DELETE. No gateway event is
 * documented for onboarding; the fake sends none but the audit-log entries'.
 *
 * Undocumented, the stricter reading: onboarding is "Community Onboarding", so modifying it on a
 * guild without the COMMUNITY feature is refused with Missing Access (50001).
 */

const { ManageGuild, ManageRoles } = PermissionFlagsBits;

const ONBOARDING_AUDITED = ['default_channel_ids', 'enabled', 'mode'] as const;
const PROMPT_AUDITED = ['title', 'options', 'single_select', 'required', 'in_onboarding', 'type'] as const;

function entry(guildId: string, target: string, action: AuditLogEvent, changes = changesOf({}, {}, [])) {
  return { kind: 'entry', guildId, entry: { target_id: target, action_type: action, changes } } as const;
}

/** The audit-log entries of an onboarding update: the onboarding's own, then each prompt's. */
function onboardingChanges(
  guildId: string,
  before: FakeOnboarding | undefined,
  after: FakeOnboarding,
): GuildChange[] {
  const changes: GuildChange[] = [];
  const own = changesOf(before ?? null, after, ONBOARDING_AUDITED);
  if (!before) changes.push(entry(guildId, guildId, AuditLogEvent.OnboardingCreate, own));
  else if (own.length > 0) changes.push(entry(guildId, guildId, AuditLogEvent.OnboardingUpdate, own));
  const old = new Map((before?.prompts ?? []).map((prompt) => [prompt.id, prompt]));
  const now = new Set(after.prompts.map((prompt) => prompt.id));
  for (const prompt of after.prompts) {
    const previous = old.get(prompt.id) ?? null;
    const diff = changesOf(previous, prompt, PROMPT_AUDITED);
    if (diff.length === 0) continue;
    const action = previous ? AuditLogEvent.OnboardingPromptUpdate : AuditLogEvent.OnboardingPromptCreate;
    changes.push(entry(guildId, prompt.id, action, diff));
  }
  for (const prompt of before?.prompts ?? []) {
    if (now.has(prompt.id)) continue;
    const diff = changesOf(prompt, null, PROMPT_AUDITED);
    changes.push(entry(guildId, prompt.id, AuditLogEvent.OnboardingPromptDelete, diff));
  }
  return changes;
}

export const onboardingRoutes: PlatformRoute[] = [
  {
    method: 'GET',
    path: '/guilds/:guild_id/onboarding',
    handle: ({ params, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      return ok(onboardingWire(guild.id, store.welcomeFlows.onboarding(guild.id) ?? NO_ONBOARDING));
    },
  },
  {
    method: 'PUT',
    path: '/guilds/:guild_id/onboarding',
    handle: ({ params, body, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      new BotAuthority(guild, actorId).require(ManageGuild | ManageRoles);
      if (!guild.features.includes('COMMUNITY')) throw platformError.missingAccess();
      const before = store.welcomeFlows.onboarding(guild.id);
      const current = before ?? NO_ONBOARDING;
      const onboarding = readOnboarding(FormBody.object(body ?? {}), guild, store, current);
      if (onboarding.enabled && !meetsRequirements(guild, onboarding)) {
        throw current.enabled
          ? platformError.onboardingBelowRequirements()
          : platformError.onboardingRequirementsNotMet();
      }
      store.welcomeFlows.setOnboarding(guild.id, onboarding);
      return ok(onboardingWire(guild.id, onboarding), onboardingChanges(guild.id, before, onboarding));
    },
  },
];

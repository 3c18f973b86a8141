import { PermissionFlagsBits } from 'discord-api-types/v10';
import { BotAuthority } from '../bot-authority';
import { FormBody } from '../form-body';
import type { FakeIncidentActions } from '../platform-state';
import { incidentsDataWire } from '../wire-format';
import { type PlatformRoute, ok } from './platform-route';

/** Discord's docs: invites and DMs can be paused for at most 24 hours ahead. */
export const MAX_INCIDENT_ACTION_MS = 24 * 60 * 60 * 1000;

/** RFC 3339 date-time, as the OpenAPI document's `date-time` format asks. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function readUntil(form: FormBody, field: keyof FakeIncidentActions, now: number): string | null {
  const value = form.string(field);
  if (value === undefined || value === null) return null;
  if (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value))) {
    form.fail(field, 'DATE_TIME_TYPE_PARSE', 'Could not parse the date-time.');
    return null;
  }
  if (Date.parse(value) - now > MAX_INCIDENT_ACTION_MS) {
    form.fail(field, 'BASE_TYPE_BAD_DATE_TIME', 'Must be at most 24 hours in the future.');
    return null;
  }
  return new Date(Date.parse(value)).toISOString();
}

/**
 * `PUT /guilds/{guild.id}/incident-actions` (Discord's "Modify Guild Incident Actions"): needs
 * MANAGE_GUILD; each time at most 24 hours ahead; null resumes. Whether an absent field keeps what
 * is in force is undocumented: the fake takes the stricter reading, a PUT replaces both (absent is
 * null). Discord's docs list no audit-log event for it, so the fake writes none.
 */
export const incidentActionRoutes: PlatformRoute[] = [
  {
    method: 'PUT',
    path: '/guilds/:guild_id/incident-actions',
    handle: ({ params, body, actorId }, store) => {
      const guild = store.guild(params.guild_id, actorId);
      new BotAuthority(guild, actorId).require(PermissionFlagsBits.ManageGuild);
      const form = FormBody.object(body ?? {});
      const now = Date.now();
      const next: FakeIncidentActions = {
        invites_disabled_until: readUntil(form, 'invites_disabled_until', now),
        dms_disabled_until: readUntil(form, 'dms_disabled_until', now),
      };
      form.check();
      guild.incidents_data = next;
      return ok(incidentsDataWire(guild, now) ?? { invites_disabled_until: null, dms_disabled_until: null });
    },
  },
];

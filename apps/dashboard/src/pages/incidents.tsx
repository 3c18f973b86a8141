import { ProblemMessage, QueryStatus } from '../app/layout';
import { Fact } from '../components/facts';
import { IncidentQuarantine } from '../components/incident-quarantine';
import { IncidentTargets, incidentTargetUserIds } from '../components/incident-targets';
import { Link, navigate } from '../app/router';
import { pathTo } from '../app/routes';
import type { Schemas } from '../api/client';
import { useIncidents, useMemberNames, useUndoIncident } from '../api/queries';
import { platformUserLabel } from '../format/audit-entry';
import { ALL_SCOPES, scopeQuery } from '../format/restore-scopes';
import { dateTime, relativeTime } from '../format/time';
import { GuildPage } from './guild';

const ACTIONS: Record<Schemas['IncidentView']['action'], [one: string, many: string]> = {
  channel_delete: ['deleted a channel', 'channels deleted'],
  role_delete: ['deleted a role', 'roles deleted'],
  member_ban: ['banned a member', 'members banned'],
  member_kick: ['kicked a member', 'members kicked'],
  member_prune: ['pruned members', 'prunes of members'],
  permission_grant: ['gave a role a dangerous permission', 'dangerous permissions given to roles'],
  dangerous_role_grant: ['gave a member a dangerous role', 'dangerous roles given to members'],
  member_role_remove: ["stripped a member's roles", 'role strips'],
  channel_overwrite: ["rewrote a channel's permissions", 'channel permissions rewritten'],
  webhook_create: ['created a webhook', 'webhooks created'],
  bot_add: ['added a bot', 'bots added'],
  vanity_url_change: ['changed the vanity URL', 'vanity URL changes'],
  emoji_delete: ['deleted an emoji', 'emojis deleted'],
  sticker_delete: ['deleted a sticker', 'stickers deleted'],
  mixed: ['made a destructive change', 'destructive changes of several kinds'],
  bot_removed: ['removed guildkeeper from the guild', 'removals of guildkeeper'],
  bot_audit_log_lost: [
    "took guildkeeper's access to the audit log",
    "removals of guildkeeper's access to the audit log",
  ],
};

/**
 * What AntiNuke saw: when, who, what was destroyed, what the raider did to members, the snapshot
 * it took when it noticed (after that damage). "Undo this raid" has the guild as it was before the
 * raider's first action composed (everyone else's changes kept), then opens the restore from it
 * with every part chosen, members' roles and bans included; the user still reads the preview and
 * approves it there.
 */
export function IncidentsPage({ guildId }: { guildId: string }) {
  const incidents = useIncidents(guildId);
  const items = incidents.data?.items ?? [];
  const actors = [...new Set(items.flatMap((incident) => incident.actor_platform_user_id ?? []))].sort();
  // Actors first: useMemberNames names the first 50 users it is given.
  const targets = [...new Set(items.flatMap(incidentTargetUserIds))].filter((id) => !actors.includes(id));
  const names = useMemberNames(guildId, { userIds: [], platformUserIds: [...actors, ...targets] });
  const undo = useUndoIncident(guildId);
  const undoRaid = (incidentId: string) =>
    undo.mutate(incidentId, {
      onSuccess: ({ snapshot_id }) =>
        navigate(pathTo('restore', { guildId }, { snapshot: snapshot_id, scope: scopeQuery(ALL_SCOPES) })),
    });
  return (
    <GuildPage guildId={guildId} title="Incidents">
      <QueryStatus query={incidents} what="incidents" />
      {incidents.data && items.length === 0 && <p>AntiNuke has recorded no raid in this guild.</p>}
      <ul className="incident-list">
        {items.map((incident) => {
          const [one, many] = ACTIONS[incident.action];
          return (
            <li key={incident.id} className="card">
              <h2>
                {incident.count === 1 ? `Someone ${one}` : `${incident.count} ${many}`}{' '}
                <span className="muted small">
                  <time dateTime={incident.opened_at}>{dateTime(incident.opened_at)}</time> (
                  {relativeTime(incident.opened_at)})
                </span>
              </h2>
              <dl className="facts">
                <Fact label="Who">
                  {platformUserLabel(incident.actor_platform_user_id, names.platformUsers)}
                </Fact>
                <Fact label="When">
                  from <time dateTime={incident.first_action_at}>{dateTime(incident.first_action_at)}</time>{' '}
                  to <time dateTime={incident.last_action_at}>{dateTime(incident.last_action_at)}</time>
                </Fact>
                <Fact label="Automatic action">
                  {incident.auto_action_taken
                    ? `the actor was quarantined${incident.auto_action_error ? ` (${incident.auto_action_error})` : ''}`
                    : incident.auto_action_error
                      ? `failed: ${incident.auto_action_error}`
                      : 'none'}
                </Fact>
                {incident.quarantine && (
                  <IncidentQuarantine
                    guildId={guildId}
                    incidentId={incident.id}
                    quarantine={incident.quarantine}
                  />
                )}
                <IncidentTargets incident={incident} names={names.platformUsers} />
                <Fact label="Snapshot taken">
                  {incident.snapshot_id ? (
                    <Link href={pathTo('snapshot', { guildId, snapshotId: incident.snapshot_id })}>
                      the guild when AntiNuke noticed
                    </Link>
                  ) : (
                    `none${incident.snapshot_error ? `: ${incident.snapshot_error}` : ''}`
                  )}
                </Fact>
                {incident.undo_snapshot_id && (
                  <Fact label="Before the raid">
                    <Link href={pathTo('snapshot', { guildId, snapshotId: incident.undo_snapshot_id })}>
                      the guild before the raider's first action
                    </Link>
                  </Fact>
                )}
              </dl>
              <p className="actions">
                {/* No raider named (guildkeeper removed, or its audit log taken): nothing to take apart. */}
                {incident.actor_platform_user_id !== null && (
                  <button
                    type="button"
                    className="button button-primary"
                    disabled={undo.isPending}
                    onClick={() => undoRaid(incident.id)}
                  >
                    {undo.isPending && undo.variables === incident.id
                      ? 'Working out what the raid changed…'
                      : 'Undo this raid'}
                  </button>
                )}
                {incident.snapshot_id && (
                  <Link
                    className="button"
                    href={pathTo('restore', { guildId }, { snapshot: incident.snapshot_id })}
                  >
                    Restore to when AntiNuke noticed
                  </Link>
                )}
              </p>
              {undo.isError && undo.variables === incident.id && <ProblemMessage error={undo.error} />}
            </li>
          );
        })}
      </ul>
    </GuildPage>
  );
}

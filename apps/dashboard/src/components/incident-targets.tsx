import type { Schemas } from '../api/client';
import { platformUserLabel } from '../format/audit-entry';
import { Fact } from './facts';

type Incident = Schemas['IncidentView'];

/** How many members or roles a list spells out; the rest is a count (the API sends up to 1,000). */
export const TARGETS_SHOWN = 20;

/** The members an incident names (banned, kicked, stripped), for useMemberNames; the first of each list. */
export function incidentTargetUserIds(incident: Incident): string[] {
  return [
    ...incident.members_banned.slice(0, TARGETS_SHOWN),
    ...incident.members_kicked.slice(0, TARGETS_SHOWN),
    ...incident.roles_stripped.slice(0, TARGETS_SHOWN).map((stripped) => stripped.user_id),
  ];
}

/** `a, b, c and 12 more`: the first TARGETS_SHOWN of `total`. */
function listed(labels: string[], total: number): string {
  const shown = labels.slice(0, TARGETS_SHOWN);
  const more = total - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/**
 * What the raider did to members: who they banned and kicked, which roles they took
 * from whom. Only the lists that have something; nothing at all for an incident without any.
 */
export function IncidentTargets({
  incident,
  names,
}: {
  incident: Incident;
  /** Platform user id → name, from useMemberNames; an unnamed user shows by id. */
  names: ReadonlyMap<string, string>;
}) {
  const user = (id: string) => platformUserLabel(id, names);
  return (
    <>
      {incident.members_banned_total > 0 && (
        <Fact label={`Members banned (${incident.members_banned_total})`}>
          {listed(incident.members_banned.map(user), incident.members_banned_total)}
        </Fact>
      )}
      {incident.members_kicked_total > 0 && (
        <Fact label={`Members kicked (${incident.members_kicked_total})`}>
          {listed(incident.members_kicked.map(user), incident.members_kicked_total)}
        </Fact>
      )}
      {incident.roles_stripped_total > 0 && (
        <Fact label={`Roles stripped (${incident.roles_stripped_total})`}>
          {listed(
            incident.roles_stripped.map(
              (stripped) =>
                `${stripped.role_name || `role ${stripped.role_id}`} from ${user(stripped.user_id)}`,
            ),
            incident.roles_stripped_total,
          )}
        </Fact>
      )}
    </>
  );
}

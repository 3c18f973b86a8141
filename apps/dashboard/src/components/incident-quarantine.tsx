import { ProblemMessage } from '../app/layout';
import type { Schemas } from '../api/client';
import { useReleaseQuarantine } from '../api/queries';
import { dateTime } from '../format/time';
import { Fact } from './facts';

type Quarantine = NonNullable<Schemas['IncidentView']['quarantine']>;

const NOT_GIVEN_BACK: Record<string, string> = {
  role_deleted: 'the role was deleted since',
  member_not_in_guild: 'they are no longer in the guild',
};

/** What the quarantine took from the incident's actor, and "Give back" (or what giving back did). */
export function IncidentQuarantine({
  guildId,
  incidentId,
  quarantine,
}: {
  guildId: string;
  incidentId: string;
  quarantine: Quarantine;
}) {
  const release = useReleaseQuarantine(guildId);
  const taken = [
    ...quarantine.roles_removed.map((role) => `the role ${role.name}`),
    ...quarantine.role_permissions_stripped.map((role) => `every permission of their role ${role.name}`),
  ];
  const result = quarantine.release_result;
  return (
    <>
      <Fact label="Quarantine took">
        <span data-testid="quarantine-taken">
          {taken.length > 0 ? taken.join(', ') : 'nothing'}
          {quarantine.member_removed === 'kick' && '; they were kicked'}
          {quarantine.member_removed === 'ban' && '; they were banned'}
        </span>
      </Fact>
      {quarantine.released_at ? (
        <Fact label="Given back">
          <time dateTime={quarantine.released_at}>{dateTime(quarantine.released_at)}</time>
          {result && result.not_given_back.length > 0 && (
            <>
              {'; not given back: '}
              {result.not_given_back
                .map((item) => `${item.name} (${NOT_GIVEN_BACK[item.reason] ?? item.reason})`)
                .join(', ')}
            </>
          )}
        </Fact>
      ) : (
        taken.length > 0 && (
          <Fact label="Given back">
            not yet{' '}
            <button
              type="button"
              className="button"
              disabled={release.isPending}
              onClick={() => release.mutate(incidentId)}
            >
              {release.isPending ? 'Giving back…' : 'Give back'}
            </button>
            {release.isError && <ProblemMessage error={release.error} />}
          </Fact>
        )
      )}
    </>
  );
}

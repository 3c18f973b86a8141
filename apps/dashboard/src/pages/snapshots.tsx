import { type FormEvent, useMemo, useState } from 'react';
import { ProblemMessage, QueryStatus } from '../app/layout';
import { Fact } from '../components/facts';
import { ListTable } from '../components/list-table';
import { Link } from '../app/router';
import { pathTo } from '../app/routes';
import type { Schemas } from '../api/client';
import { useCreateSnapshot, useMe, useSnapshot, useSnapshots } from '../api/queries';
import { describeOverride } from '../format/permissions';
import { CATEGORY, channelTypeName } from '../format/restore-diff';
import { byteSize, dateTime, relativeTime } from '../format/time';
import { GuildPage } from './guild';
import { DeletedSnapshots, DeleteSnapshotButton } from './snapshot-deletes';

const TRIGGERS: Record<Schemas['SnapshotSummaryView']['trigger'], string> = {
  manual: 'By hand',
  scheduled: 'Scheduled',
  antinuke: 'AntiNuke (during a raid)',
  pre_restore: 'Before a restore',
};

const PAGE = 20;

export function SnapshotsPage({ guildId }: { guildId: string }) {
  const [limit, setLimit] = useState(PAGE);
  const snapshots = useSnapshots(guildId, limit);
  const me = useMe();
  const items = snapshots.data?.items ?? [];
  return (
    <GuildPage guildId={guildId} title="Snapshots">
      <CreateSnapshot guildId={guildId} />
      <h2>Saved snapshots</h2>
      <QueryStatus query={snapshots} what="snapshots" />
      {snapshots.data && items.length === 0 && <p>No snapshot yet.</p>}
      {items.length > 0 && (
        <ListTable
          caption="Snapshots, newest first"
          columns={[
            'Taken',
            'Description',
            'Trigger',
            'By',
            'Size',
            <span className="visually-hidden">Actions</span>,
          ]}
        >
          {items.map((snapshot) => (
            <tr key={snapshot.id}>
              <td data-label="Taken">
                <Link href={pathTo('snapshot', { guildId, snapshotId: snapshot.id })}>
                  <time dateTime={snapshot.created_at}>{dateTime(snapshot.created_at)}</time>
                </Link>
                <span className="muted small"> {relativeTime(snapshot.created_at)}</span>
              </td>
              <td data-label="Description">{snapshot.description || <span className="muted">none</span>}</td>
              <td data-label="Trigger">{TRIGGERS[snapshot.trigger]}</td>
              <td data-label="By">
                {snapshot.created_by_user === null
                  ? 'guildkeeper'
                  : snapshot.created_by_user === me.data?.id
                    ? 'You'
                    : 'Another administrator'}
              </td>
              <td data-label="Size">{byteSize(snapshot.size)}</td>
              <td>
                <Link
                  className="button button-small"
                  href={pathTo('restore', { guildId }, { snapshot: snapshot.id })}
                >
                  Restore from this
                  <span className="visually-hidden"> snapshot of {dateTime(snapshot.created_at)}</span>
                </Link>{' '}
                <DeleteSnapshotButton
                  guildId={guildId}
                  snapshotId={snapshot.id}
                  label={dateTime(snapshot.created_at)}
                />
              </td>
            </tr>
          ))}
        </ListTable>
      )}
      {snapshots.data?.next_cursor && (
        <p>
          <button
            type="button"
            className="button"
            onClick={() => setLimit((current) => Math.min(current + PAGE, 100))}
          >
            Show more
          </button>
        </p>
      )}
      <DeletedSnapshots guildId={guildId} />
    </GuildPage>
  );
}

function CreateSnapshot({ guildId }: { guildId: string }) {
  const [description, setDescription] = useState('');
  const create = useCreateSnapshot(guildId);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(description.trim(), { onSuccess: () => setDescription('') });
  };
  return (
    <form className="card create-snapshot" onSubmit={submit}>
      <h2>Take a snapshot now</h2>
      <label htmlFor="snapshot-description">Description (optional)</label>
      <div className="inline-form">
        <input
          id="snapshot-description"
          value={description}
          maxLength={500}
          onChange={(event) => setDescription(event.target.value)}
          placeholder="before the event"
        />
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Taking the snapshot…' : 'Take snapshot'}
        </button>
      </div>
      <div aria-live="polite">
        {create.isSuccess && (
          <p className="success">
            Snapshot taken ({byteSize(create.data.size)}).{' '}
            <Link href={pathTo('snapshot', { guildId, snapshotId: create.data.id })}>Open it</Link>
          </p>
        )}
      </div>
      {create.isError && <ProblemMessage error={create.error} />}
    </form>
  );
}

type Payload = Schemas['SnapshotPayload'];

const OMITTED_LABELS: Record<Schemas['OmittedPart']['part'], string> = {
  member_roles: 'Members’ roles',
  bans: 'Bans',
  expressions: 'Emojis and stickers',
  images: 'Some images',
  automod: 'AutoMod rules',
  onboarding: 'Welcome screen and onboarding',
  webhooks: 'Webhooks',
};

/** The saved guild as a tree: settings, roles in order with colours, categories with channels. */
export function SnapshotPage({ guildId, snapshotId }: { guildId: string; snapshotId: string }) {
  const snapshot = useSnapshot(snapshotId, true);
  return (
    <GuildPage
      guildId={guildId}
      title="Snapshot"
      actions={
        <>
          <a className="button" href={`/api/v1/snapshots/${snapshotId}/export`} download>
            Download a copy
          </a>
          <Link
            className="button button-primary"
            href={pathTo('restore', { guildId }, { snapshot: snapshotId })}
          >
            Restore from this snapshot
          </Link>
        </>
      }
    >
      <QueryStatus query={snapshot} what="the snapshot" />
      {snapshot.data && (
        <>
          <dl className="facts">
            <Fact label="Taken">
              <time dateTime={snapshot.data.created_at}>{dateTime(snapshot.data.created_at)}</time>
            </Fact>
            <Fact label="Description">{snapshot.data.description || 'none'}</Fact>
            <Fact label="Trigger">{TRIGGERS[snapshot.data.trigger]}</Fact>
            <Fact label="Holds">
              {snapshot.data.counts.roles} roles, {snapshot.data.counts.channels} channels,{' '}
              {snapshot.data.counts.permission_overrides} overrides
              {snapshot.data.counts.members_with_roles !== null &&
                `, ${snapshot.data.counts.members_with_roles} members’ roles`}
              {snapshot.data.counts.bans !== null && `, ${snapshot.data.counts.bans} bans`}
              {snapshot.data.counts.emojis !== null &&
                `, ${snapshot.data.counts.emojis} emojis, ${snapshot.data.counts.stickers ?? 0} stickers`}{' '}
              ({byteSize(snapshot.data.size)})
            </Fact>
            {snapshot.data.omitted.map((part) => (
              <Fact key={part.part} label={OMITTED_LABELS[part.part]}>
                not kept: {part.reason}
              </Fact>
            ))}
          </dl>
          {snapshot.data.payload && <SnapshotTree payload={snapshot.data.payload} />}
        </>
      )}
    </GuildPage>
  );
}

export function roleColor(color: number): string | null {
  return color === 0 ? null : `#${color.toString(16).padStart(6, '0')}`;
}

function SnapshotTree({ payload }: { payload: Payload }) {
  const roleNames = useMemo(() => {
    const names = new Map(payload.roles.map((role) => [role.id, role.name]));
    return names;
  }, [payload]);
  const overrides = useMemo(() => {
    const byChannel = new Map<string, Payload['permission_overrides']>();
    for (const override of payload.permission_overrides) {
      const list = byChannel.get(override.channel_id) ?? [];
      list.push(override);
      byChannel.set(override.channel_id, list);
    }
    return byChannel;
  }, [payload]);
  const roles = [...payload.roles].sort((a, b) => b.position - a.position);
  const channels = [...payload.channels].sort((a, b) => a.position - b.position);
  const categories = channels.filter((channel) => channel.type === CATEGORY);
  const outside = channels.filter((channel) => channel.type !== CATEGORY && channel.parent_id === null);

  const channelItem = (channel: Payload['channels'][number]) => (
    <li key={channel.id}>
      <span className="channel-name">
        {channel.type === 2 || channel.type === 13 ? '🔊 ' : '# '}
        {channel.name}
      </span>{' '}
      <span className="muted small">{channelTypeName(channel.type)}</span>
      {channel.topic && <span className="muted small"> · {channel.topic}</span>}
      <Overrides list={overrides.get(channel.id)} roleNames={roleNames} />
    </li>
  );

  return (
    <div className="tree">
      <section aria-labelledby="tree-settings">
        <h2 id="tree-settings">Settings</h2>
        <p>
          <strong>{payload.guild.name}</strong>
          {payload.guild.description && ` · ${payload.guild.description}`}
        </p>
      </section>
      <section aria-labelledby="tree-roles">
        <h2 id="tree-roles">Roles ({payload.roles.length}), highest first</h2>
        <ol className="role-list">
          {roles.map((role) => (
            <li key={role.id}>
              <span
                className="swatch"
                style={{ background: roleColor(role.color) ?? 'transparent' }}
                aria-hidden="true"
              />
              <span className="role-name">{role.id === payload.guild.id ? '@everyone' : role.name}</span>
              {roleColor(role.color) && <span className="muted small"> {roleColor(role.color)}</span>}
              {role.managed && <span className="muted small"> · managed by an integration</span>}
            </li>
          ))}
        </ol>
      </section>
      <section aria-labelledby="tree-channels">
        <h2 id="tree-channels">Channels ({payload.channels.length})</h2>
        {outside.length > 0 && <ul className="channel-list">{outside.map(channelItem)}</ul>}
        {categories.map((category) => (
          <div key={category.id} className="category">
            <h3>{category.name}</h3>
            <Overrides list={overrides.get(category.id)} roleNames={roleNames} />
            <ul className="channel-list">
              {channels.filter((channel) => channel.parent_id === category.id).map(channelItem)}
            </ul>
          </div>
        ))}
      </section>
    </div>
  );
}

function Overrides({
  list,
  roleNames,
}: {
  list: Payload['permission_overrides'] | undefined;
  roleNames: ReadonlyMap<string, string>;
}) {
  if (!list?.length) return null;
  return (
    <ul className="overrides">
      {list.map((override) => (
        <li key={`${override.type}:${override.id}`}>{describeOverride(override, roleNames)}</li>
      ))}
    </ul>
  );
}

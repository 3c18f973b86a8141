import { type ReactNode, useMemo } from 'react';
import type { Schemas } from '../api/client';
import { describeOverride } from '../format/permissions';
import {
  type ChangeKind,
  channelTypeName,
  expressionChanges,
  type GroupedPreview,
  groupPreview,
} from '../format/restore-diff';
import { readableDuration } from '../format/time';

/*
 * A restore's preview as the restore page shows it before approval: the counts per part and the
 * estimate, then every change grouped by category, with the notes and what is skipped.
 */

const KIND_LABELS: Record<ChangeKind, string> = { create: 'Create', update: 'Update', delete: 'Delete' };

type Preview = Schemas['RestorePreviewView'];

const countText = (counts: Record<ChangeKind, number>) =>
  (Object.keys(KIND_LABELS) as ChangeKind[])
    .filter((kind) => counts[kind] > 0)
    .map((kind) => `${counts[kind]} to ${kind}`)
    .join(', ') || 'nothing';

/** The preview as a readable diff, grouped like the snapshot tree, with counts per kind. */
export function PreviewView({
  preview,
  payload,
}: {
  preview: Preview;
  payload: Schemas['SnapshotPayload'] | null;
}) {
  const grouped: GroupedPreview = useMemo(() => groupPreview(preview, payload), [preview, payload]);
  const roleNames = useMemo(
    () => new Map((payload?.roles ?? []).map((role) => [role.id, role.name])),
    [payload],
  );
  const { counts } = grouped;
  if (counts.total === 0) {
    return (
      <div className="preview" data-testid="restore-preview">
        <p className="success" role="status">
          Nothing to restore: the guild already matches the snapshot in these parts.
        </p>
        <Skipped skipped={grouped.skipped} />
      </div>
    );
  }
  return (
    <div className="preview" data-testid="restore-preview">
      <table className="table counts">
        <caption>Changes by kind</caption>
        <tbody>
          <tr>
            <th scope="row">Roles</th>
            <td>{countText(counts.roles)}</td>
          </tr>
          <tr>
            <th scope="row">Channels</th>
            <td>{countText(counts.channels)}</td>
          </tr>
          <tr>
            <th scope="row">Overrides</th>
            <td>
              {counts.overrides.apply} to set, {counts.overrides.remove} to remove
            </td>
          </tr>
          <tr>
            <th scope="row">Guild settings</th>
            <td>{counts.settings} to change</td>
          </tr>
          {(counts.members > 0 || preview.members_absent > 0) && (
            <tr>
              <th scope="row">Members’ roles</th>
              <td>
                {counts.members} {counts.members === 1 ? 'member' : 'members'} to give roles back
                {preview.members_absent > 0 && `; ${preview.members_absent} no longer in the server`}
              </td>
            </tr>
          )}
          {counts.bans > 0 && (
            <tr>
              <th scope="row">Bans</th>
              <td>{counts.bans} to lift</td>
            </tr>
          )}
          {preview.emojis_to_create !== undefined && (
            <tr>
              <th scope="row">Custom emojis</th>
              <td>{countText(counts.emojis)}</td>
            </tr>
          )}
          {preview.stickers_to_create !== undefined && (
            <tr>
              <th scope="row">Stickers</th>
              <td>{countText(counts.stickers)}</td>
            </tr>
          )}
          {preview.automod_rules_to_create !== undefined && (
            <tr>
              <th scope="row">AutoMod rules</th>
              <td>{countText(counts.automod)}</td>
            </tr>
          )}
          {preview.onboarding_prompts_to_create !== undefined && (
            <tr>
              <th scope="row">Welcome screen and onboarding</th>
              <td>{countText(counts.onboarding)}</td>
            </tr>
          )}
          {preview.webhooks_to_create !== undefined && (
            <tr>
              <th scope="row">Webhooks</th>
              <td>{countText(counts.webhooks)}</td>
            </tr>
          )}
          {preview.guild_images_to_set !== undefined && (
            <tr>
              <th scope="row">Server images</th>
              <td>{counts.images} to put back</td>
            </tr>
          )}
          <tr>
            <th scope="row">Skipped</th>
            <td>{counts.skipped}</td>
          </tr>
          <tr>
            <th scope="row">Estimated time</th>
            <td>{readableDuration(preview.estimated_duration)}</td>
          </tr>
        </tbody>
      </table>

      <PreviewSection id="preview-roles" title="Roles" count={grouped.roles.length}>
        <ul className="changes">
          {grouped.roles.map((role) => (
            <Change key={`${role.kind}:${role.id}`} kind={role.kind}>
              <span
                className="swatch"
                style={{
                  background: role.secondaryColor
                    ? `linear-gradient(90deg, ${role.color ?? 'transparent'}, ${role.secondaryColor})`
                    : (role.color ?? 'transparent'),
                }}
                aria-hidden="true"
              />
              <span className="role-name">{role.name}</span>
              <Fields fields={role.fields} />
              <Notes notes={role.notes} />
            </Change>
          ))}
        </ul>
      </PreviewSection>

      <PreviewSection id="preview-channels" title="Channels" count={grouped.channels.length}>
        {grouped.channels.map((group) => (
          <div key={group.categoryId ?? 'none'} className="category">
            <h4>
              {group.change && <span className="kind">{KIND_LABELS[group.change.kind]} category </span>}
              {group.name}
            </h4>
            {group.change && <Fields fields={group.change.fields} />}
            {group.channels.length > 0 && (
              <ul className="changes">
                {group.channels.map((channel) => (
                  <Change key={`${channel.kind}:${channel.id}`} kind={channel.kind}>
                    #{channel.name} <span className="muted small">{channelTypeName(channel.type)}</span>
                    <Fields fields={channel.fields} />
                    <Notes notes={channel.notes} />
                  </Change>
                ))}
              </ul>
            )}
          </div>
        ))}
      </PreviewSection>

      <PreviewSection
        id="preview-overrides"
        title="Channel permission overrides"
        count={grouped.overrides.length}
      >
        {grouped.overrides.map((group) => (
          <div key={group.channelId} className="category">
            <h4>#{group.channelName}</h4>
            <ul className="changes">
              {group.apply.map((item) => (
                <Change key={`set:${item.type}:${item.id}`} kind="create" label="Set">
                  {describeOverride(item, roleNames, item.target_name)}
                </Change>
              ))}
              {group.remove.map((item) => (
                <Change key={`remove:${item.type}:${item.id}`} kind="delete" label="Remove">
                  {describeOverride(item, roleNames, item.target_name)}
                </Change>
              ))}
            </ul>
          </div>
        ))}
      </PreviewSection>

      <PreviewSection id="preview-settings" title="Guild settings" count={grouped.settings.length}>
        <Fields fields={grouped.settings} />
      </PreviewSection>
      <MemberRoles preview={preview} />
      <PreviewSection id="preview-bans" title="Bans to lift" count={preview.bans_to_lift.length}>
        <p className="muted small">Bans made since the snapshot; a ban the snapshot has stays.</p>
        <ul className="changes">
          {preview.bans_to_lift.map((ban) => (
            <Change key={ban.user_id} kind="delete" label="Lift">
              {ban.name}
              {ban.reason && <span className="muted small"> (banned for: {ban.reason})</span>}
            </Change>
          ))}
        </ul>
      </PreviewSection>
      <Expressions preview={preview} />
      <Skipped skipped={grouped.skipped} />
    </div>
  );
}

/** The custom emojis, stickers and server images the restore makes, changes or deletes. */
function Expressions({ preview }: { preview: Preview }) {
  const changes = useMemo(() => expressionChanges(preview), [preview]);
  const sections = [
    { id: 'preview-emojis', title: 'Custom emojis', items: changes.emojis, prefix: ':' },
    { id: 'preview-stickers', title: 'Stickers', items: changes.stickers, prefix: '' },
    { id: 'preview-images', title: 'Server images', items: changes.images, prefix: '' },
    { id: 'preview-automod', title: 'AutoMod rules', items: changes.automod, prefix: '' },
    {
      id: 'preview-onboarding',
      title: 'Welcome screen and onboarding',
      items: changes.onboarding,
      prefix: '',
    },
    { id: 'preview-webhooks', title: 'Webhooks', items: changes.webhooks, prefix: '' },
  ];
  return (
    <>
      {sections.map(({ id, title, items, prefix }) => (
        <PreviewSection key={id} id={id} title={title} count={items.length}>
          <ul className="changes">
            {items.map((item) => (
              <Change key={`${item.kind}:${item.id}`} kind={item.kind}>
                {prefix ? `${prefix}${item.name}${prefix}` : item.name}
                {item.detail && <span className="muted small"> ({item.detail})</span>}
              </Change>
            ))}
          </ul>
        </PreviewSection>
      ))}
    </>
  );
}

/**
 * Who gets which role back: per role, how many members and a few of their names. Each member is
 * updated once, with all their roles; members who left are not added back (the platform needs
 * their consent), only counted.
 */
function MemberRoles({ preview }: { preview: Preview }) {
  const roles = preview.member_roles_to_restore;
  return (
    <PreviewSection id="preview-member-roles" title="Members’ roles" count={roles.length}>
      <ul className="changes">
        {roles.map((role) => (
          <Change key={role.role_id} kind="create" label="Give back">
            <span className="role-name">{role.role_name}</span> to {role.members}{' '}
            {role.members === 1 ? 'member' : 'members'}
            <span className="muted small">
              {' '}
              ({role.sample.join(', ')}
              {role.members > role.sample.length && ', …'})
            </span>
          </Change>
        ))}
      </ul>
      {preview.members_absent > 0 && (
        <p className="muted small">
          {preview.members_absent} {preview.members_absent === 1 ? 'member who' : 'members who'} held roles
          {preview.members_absent === 1 ? ' is' : ' are'} no longer in the server; a bot cannot add them back.
        </p>
      )}
    </PreviewSection>
  );
}

/** One line of the preview: what happens (by default the kind's label: Create, Update, Delete) and to what. */
function Change({ kind, label, children }: { kind: ChangeKind; label?: string; children: ReactNode }) {
  return (
    <li className={`change change-${kind}`}>
      <span className="kind">{label ?? KIND_LABELS[kind]}</span> {children}
    </li>
  );
}

/** One kind of change in the preview, under its own heading; nothing when there are `count` 0 of them. */
function PreviewSection({
  id,
  title,
  count,
  children,
}: {
  id: string;
  title: string;
  count: number;
  children: ReactNode;
}) {
  if (count === 0) return null;
  return (
    <section aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {children}
    </section>
  );
}

function Fields({ fields }: { fields: { field: string; before: string; after: string }[] }) {
  if (!fields.length) return null;
  return (
    <dl className="fields">
      {fields.map(({ field, before, after }) => (
        <div key={field}>
          <dt>{field.replace(/_/g, ' ')}</dt>
          <dd>
            <del>{before}</del> <span aria-hidden="true">→</span>
            <span className="visually-hidden"> becomes </span> <ins>{after}</ins>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** What the live guild's limits change about an item's restore (a lower bitrate cap, no gradient). */
function Notes({ notes }: { notes: string[] }) {
  if (!notes.length) return null;
  return (
    <ul className="notes muted small">
      {notes.map((note) => (
        <li key={note}>Note: {note}</li>
      ))}
    </ul>
  );
}

function Skipped({ skipped }: { skipped: Preview['skipped'] }) {
  return (
    <PreviewSection id="preview-skipped" title="Skipped" count={skipped.length}>
      <ul className="changes">
        {skipped.map((item) => (
          <li key={`${item.scope}:${item.id}`} className="change change-skip">
            <span className="kind">Skip</span> {item.name}: {item.reason}
          </li>
        ))}
      </ul>
    </PreviewSection>
  );
}

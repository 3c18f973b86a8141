import type { PlatformMember } from '@lib/chat-platform';
import { guildState, MEMBERS } from '../sync/guild-state.fixture';
import {
  OMITTED_FOR_SIZE,
  readSnapshotPayload,
  serialiseSnapshot,
  SNAPSHOT_MAX_BYTES,
  snapshotImageDigests,
  snapshotMemberRoles,
} from './snapshot-payload';
import { SnapshotErrors } from './snapshots.errors';

const AT = new Date('2026-11-28T00:00:00.000Z');

/** What `read` threw (it must throw). */
function thrownBy(read: () => unknown): unknown {
  try {
    read();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

function member(id: string, roles: string[]): PlatformMember {
  return { user: { id, username: 'u', global_name: null, bot: false }, roles, nick: null };
}

describe('snapshot payload versions 2 and 3', () => {
  it('keeps who held which role and the bans, and reads them back', () => {
    const { payload, json } = serialiseSnapshot(guildState(), AT, {
      members: [member('300000000000000001', [MEMBERS]), member('300000000000000002', [])],
      bans: [
        { user: { id: '300000000000000003', username: 'x', global_name: null, bot: false }, reason: 'spam' },
      ],
    });

    const read = readSnapshotPayload(JSON.parse(json));

    expect(payload.version).toBe(3);
    expect(Object.fromEntries(snapshotMemberRoles(read)!)).toEqual({ '300000000000000001': [MEMBERS] });
    expect(read.bans).toEqual([{ user_id: '300000000000000003', reason: 'spam' }]);
    expect(read.omitted).toBeUndefined();
  });

  it('names a part the bot could not read', () => {
    const { payload } = serialiseSnapshot(guildState(), AT, {
      members: { unreadable: 'intent off' },
      bans: [],
    });
    expect(payload.member_roles).toBeUndefined();
    expect(payload.omitted).toEqual([{ part: 'member_roles', reason: 'intent off' }]);
  });

  it('leaves out the bans, then the members’ roles, rather than pass the size limit', () => {
    // About 6 MB of bans: over the limit alone, so the bans go and the members' roles stay.
    const bans = Array.from({ length: 60_000 }, (_, i) => ({
      user: { id: String(300000000000000000n + BigInt(i)), username: 'x', global_name: null, bot: false },
      reason: 'r'.repeat(60),
    }));
    const { payload, size } = serialiseSnapshot(guildState(), AT, {
      members: [member('300000000000000001', [MEMBERS])],
      bans,
    });

    expect(size).toBeLessThanOrEqual(SNAPSHOT_MAX_BYTES);
    expect(payload.bans).toBeUndefined();
    expect(payload.member_roles).toBeDefined();
    expect(payload.omitted).toEqual([{ part: 'bans', reason: OMITTED_FOR_SIZE }]);
  });

  it('still reads version 1, which has neither', () => {
    const read = readSnapshotPayload({ version: 1, snapshot_at: AT.toISOString(), ...guildState() });
    expect(snapshotMemberRoles(read)).toBeNull();
    expect(read.bans).toBeUndefined();
  });

  it('refuses malformed members’ roles, bans, emojis or images as unsupported', () => {
    const base = { version: 2, snapshot_at: AT.toISOString(), ...guildState() };
    const unsupported = { code: SnapshotErrors.unsupported.code, status: 422 };
    expect(
      thrownBy(() =>
        snapshotMemberRoles(readSnapshotPayload({ ...base, member_roles: { members: '1,0', roles: {} } })),
      ),
    ).toMatchObject(unsupported);
    expect(thrownBy(() => readSnapshotPayload({ ...base, bans: [{ user_id: 5 }] }))).toMatchObject(
      unsupported,
    );
    expect(thrownBy(() => readSnapshotPayload({ ...base, version: 4 }))).toMatchObject(unsupported);
    const emoji = { id: '5', name: 'party', animated: false, roles: [], image: 'f'.repeat(64) };
    expect(readSnapshotPayload({ ...base, version: 3, emojis: [emoji] }).emojis).toEqual([emoji]);
    expect(
      thrownBy(() => readSnapshotPayload({ ...base, version: 3, emojis: [{ ...emoji, image: 'x' }] })),
    ).toMatchObject(unsupported);
    expect(
      thrownBy(() => readSnapshotPayload({ ...base, version: 3, guild_images: { avatar: 'f'.repeat(64) } })),
    ).toMatchObject(unsupported);
  });

  it('reads role icons’ images by role id, named among the images export and retention keep', () => {
    const base = { version: 3, snapshot_at: AT.toISOString(), ...guildState() };
    const icons = { [MEMBERS]: 'a'.repeat(64) };
    const read = readSnapshotPayload({ ...base, role_icons: icons, guild_images: { icon: 'b'.repeat(64) } });
    expect(read.role_icons).toEqual(icons);
    expect(snapshotImageDigests(read).sort()).toEqual(['a'.repeat(64), 'b'.repeat(64)]);
    // A digest that is not one, a role the payload does not have, or a list, is refused.
    const unsupported = { code: SnapshotErrors.unsupported.code, status: 422 };
    for (const role_icons of [{ [MEMBERS]: 'x' }, { '999': 'a'.repeat(64) }, ['a'.repeat(64)]]) {
      expect(thrownBy(() => readSnapshotPayload({ ...base, role_icons }))).toMatchObject(unsupported);
    }
  });
});

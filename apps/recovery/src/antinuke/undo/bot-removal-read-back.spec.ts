import type { AuditLogEntry, ChatPlatformClient } from '@lib/chat-platform';
import { AuditLogEvent } from 'discord-api-types/v10';
import type { ChangeJournalRepository, JournalAuditEntryToStore } from '../../sync/change-journal.repository';
import { snowflakeAt } from './audit-log-read-back';
import { BotRemovalReadBack, MAX_READ_BACK_PAGES } from './bot-removal-read-back';
import type { RaidUndoRepository } from './raid-undo.repository';

const BOT = '100000000000000001';
const RAIDER = '100000000000000002';
const OWNER = '100000000000000003';
const REMOVED_AT = new Date('2026-11-29T12:00:00.000Z');

function entry(seconds: number, userId: string, actionType: number, targetId: string): AuditLogEntry {
  const id = (BigInt(snowflakeAt(new Date(REMOVED_AT.getTime() + seconds * 1_000))) + 1n).toString();
  return { id, actorId: userId, actionType, targetId, reason: null, changes: [] };
}

/** A platform whose audit log holds `log` (oldest first) and answers pages as the platform does. */
function setUp(log: AuditLogEntry[]) {
  const pages: { before?: string; limit?: number }[] = [];
  const platform = {
    getCurrentUser: jest.fn(() => Promise.resolve({ id: BOT })),
    readAuditLog: jest.fn((_guild: string, page: { before?: string; limit?: number }) => {
      pages.push(page);
      const older = log.filter((item) => page.before === undefined || BigInt(item.id) < BigInt(page.before));
      return Promise.resolve(older.slice(-(page.limit ?? 50)).reverse());
    }),
  };
  const named: unknown[] = [];
  const incidents = {
    nameRaider: jest.fn((_id: string, raider: unknown) => {
      named.push(raider);
      return Promise.resolve(true);
    }),
  };
  const stored: JournalAuditEntryToStore[] = [];
  const journal = {
    insert: jest.fn((_changes: unknown[], entries: JournalAuditEntryToStore[]) => {
      stored.push(...entries);
      return Promise.resolve();
    }),
  };
  const sut = new BotRemovalReadBack(
    platform as unknown as ChatPlatformClient,
    incidents as unknown as RaidUndoRepository,
    journal as unknown as ChangeJournalRepository,
  );
  return { sut, pages, named, stored, incidents };
}

const removal = { incidentId: 'incident-1', guildId: 'guild-1', platformGuildId: '5', removedAt: REMOVED_AT };

describe(BotRemovalReadBack.name, () => {
  it('pages back to the removal, names the raider and journals their entries from the kick on', async () => {
    const kick = entry(-1, RAIDER, AuditLogEvent.MemberKick, BOT);
    const raid = [
      entry(2, RAIDER, AuditLogEvent.ChannelDelete, '8'),
      entry(3, RAIDER, AuditLogEvent.RoleDelete, '9'),
    ];
    // Long before the removal (not read), and 250 of the owner's after it (three pages).
    const old = Array.from({ length: 30 }, (_, i) =>
      entry(-3_600 - i, RAIDER, AuditLogEvent.ChannelUpdate, '7'),
    );
    const busy = Array.from({ length: 250 }, (_, i) =>
      entry(10 + i, OWNER, AuditLogEvent.ChannelUpdate, '7'),
    );
    const { sut, pages, named, stored } = setUp([...old.reverse(), kick, ...raid, ...busy]);

    expect(await sut.readBack({ ...removal, actor: null })).toBe(RAIDER);

    expect(pages).toHaveLength(3);
    expect(pages.every((page) => page.limit === 100)).toBe(true);
    expect(named).toEqual([{ actor: RAIDER, entryId: kick.id, at: expect.any(Date) }]);
    expect(stored.map((row) => row.entry.entry_id)).toEqual([kick.id, ...raid.map((item) => item.id)]);
    expect(stored.every((row) => row.guild_id === 'guild-1')).toBe(true);
  });

  it('leaves a raider the incident names as it is', async () => {
    const kick = entry(0, RAIDER, AuditLogEvent.MemberKick, BOT);
    const { sut, incidents, stored } = setUp([kick, entry(1, RAIDER, AuditLogEvent.ChannelDelete, '8')]);
    expect(await sut.readBack({ ...removal, actor: RAIDER })).toBe(RAIDER);
    expect(incidents.nameRaider).not.toHaveBeenCalled();
    expect(stored).toHaveLength(2);
  });

  it('stops after MAX_READ_BACK_PAGES pages in a guild too busy to reach the removal', async () => {
    const busy = Array.from({ length: (MAX_READ_BACK_PAGES + 5) * 100 }, (_, i) =>
      entry(10 + i / 100, OWNER, AuditLogEvent.ChannelUpdate, '7'),
    );
    const { sut, pages, stored } = setUp([entry(0, RAIDER, AuditLogEvent.MemberKick, BOT), ...busy]);
    expect(await sut.readBack({ ...removal, actor: null })).toBeNull();
    expect(pages).toHaveLength(MAX_READ_BACK_PAGES);
    expect(stored).toEqual([]);
  });
});

import type { ChatPlatformClient, GuildState, PlatformMember } from '@lib/chat-platform';
import type { SnapshotPayload } from '../snapshots/snapshot-payload';
import { guildSettings, platformRole } from '../sync/guild-state.fixture';
import type { SnapshotsRepository } from '../snapshots/snapshots.repository';
import type { PlatformIdReplacementsRepository } from './platform-id-replacements.repository';
import { RestoreComparisons } from './restore-comparisons';
import type { IdReplacement } from './restore-diff';

const GUILD = '100';
const BOT = '900';

function liveGuild(): GuildState {
  return {
    guild: guildSettings(GUILD, { name: 'g', owner_id: '1', verification_level: 0 }),
    roles: [platformRole(GUILD, { name: '@everyone', position: 0 })],
    channels: [],
    permission_overrides: [],
  };
}

function heldPlatform() {
  const reads: ((state: GuildState) => void)[] = [];
  const log: string[] = [];
  const platform = {
    getGuildState: () =>
      new Promise<GuildState>((resolve) => {
        log.push('guild read');
        reads.push(resolve);
      }),
    getCurrentUser: () => Promise.resolve({ id: BOT, username: 'bot', global_name: null, bot: true }),
    getMember: (): Promise<PlatformMember> =>
      Promise.resolve({
        user: { id: BOT, username: 'bot', global_name: null, bot: true },
        roles: [],
        nick: null,
      }),
  } as unknown as ChatPlatformClient;
  const replacements = {
    ofGuild: (): Promise<IdReplacement[]> => {
      log.push('replacements read');
      return Promise.resolve([]);
    },
  } as unknown as PlatformIdReplacementsRepository;
  const answerAll = () => reads.splice(0).forEach((answer) => answer(liveGuild()));
  return { platform, replacements, reads, log, answerAll };
}

describe(RestoreComparisons.name, () => {
  const target = { ...liveGuild(), version: 1 } as unknown as SnapshotPayload;

  function setUp() {
    const held = heldPlatform();
    const sut = new RestoreComparisons({} as SnapshotsRepository, held.replacements, held.platform);
    const compare = (sharedFrom?: number) => sut.compare('guild-1', GUILD, target, ['roles'], sharedFrom);
    return { ...held, sut, compare };
  }

  it('lets comparisons that start together share one read of the guild', async () => {
    const { sut, compare, reads, answerAll } = setUp();
    const mark = sut.readsFrom();
    const both = Promise.all([compare(mark), compare(mark)]);
    await Promise.resolve();
    expect(reads).toHaveLength(1);
    answerAll();
    const [a, b] = await both;
    expect(a.live).toBe(b.live);
  });

  it('never gives a comparison a read that began before it started', async () => {
    const { sut, compare, reads, answerAll } = setUp();
    const first = compare(sut.readsFrom());
    await Promise.resolve();
    // This one starts while the first read is in flight: it reads again.
    const second = compare(sut.readsFrom());
    await Promise.resolve();
    expect(reads).toHaveLength(2);
    answerAll();
    await Promise.all([first, second]);
  });

  it('reads the recorded replacements only after the guild', async () => {
    const { compare, log, answerAll } = setUp();
    const comparison = compare();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['guild read']);
    answerAll();
    await comparison;
    expect(log).toEqual(['guild read', 'replacements read']);
  });
});

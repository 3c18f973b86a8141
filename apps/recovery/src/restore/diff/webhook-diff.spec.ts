import { ALL_PERMISSIONS, PERMISSION } from '@lib/chat-platform';
import type { SnapshotWebhook } from '../../snapshots/snapshot-payload';
import { GENERAL, guildState, RULES } from '../../sync/guild-state.fixture';
import {
  type BotStanding,
  computeRestoreDiff,
  type IdReplacement,
  type LiveWebhook,
  SKIP_REASON,
  SnapshotIdResolution,
} from '../restore-diff';

const BOT: BotStanding = {
  highestRolePosition: 10,
  permissions: ALL_PERMISSIONS,
  isOwner: false,
  userId: '900',
  roleIds: [],
};
const digest = (c: string) => c.repeat(64);

const kept = (id: string, name: string, fields: Partial<SnapshotWebhook> = {}): SnapshotWebhook => ({
  id,
  channel_id: GENERAL,
  name,
  avatar: null,
  image: null,
  ...fields,
});
const live = (id: string, name: string, fields: Partial<LiveWebhook> = {}): LiveWebhook => ({
  id,
  type: 1,
  channel_id: GENERAL,
  name,
  avatar: null,
  image: null,
  ...fields,
});

function sut(
  snapshot: SnapshotWebhook[] | undefined,
  now: LiveWebhook[] | undefined,
  { replacements = [] as IdReplacement[], bot = BOT } = {},
) {
  const state = guildState();
  return computeRestoreDiff({
    target: { version: 3, snapshot_at: '2026-11-01T00:00:00.000Z', ...state, webhooks: snapshot },
    live: state,
    webhooks: now,
    scope: ['webhooks'],
    ids: new SnapshotIdResolution(state, replacements, undefined, now),
    bot,
  });
}

describe('the webhooks diff', () => {
  it('makes the missing, sets back the changed and deletes the raider’s incoming webhooks', () => {
    const diff = sut(
      [
        kept('1', 'Feed', { avatar: 'hash-a', image: digest('a') }),
        kept('2', 'Builds'),
        kept('3', 'Alerts', { channel_id: RULES }),
      ],
      [
        live('2', 'pwned', { channel_id: RULES, avatar: 'raider', image: digest('r') }),
        live('3', 'Alerts', { channel_id: RULES }),
        live('4', 'raider'),
        // A followed announcement channel's webhook: a bot cannot make one, so it is left alone.
        live('5', 'News', { type: 2 }),
      ],
    );
    expect(diff.webhooks_to_create).toEqual([
      { id: '1', name: 'Feed', channel_id: GENERAL, image: digest('a') },
    ]);
    expect(diff.webhooks_to_update).toEqual([
      {
        current: { id: '2', name: 'pwned', channel_id: RULES, image: digest('r') },
        target: { id: '2', name: 'Builds', channel_id: GENERAL, image: null },
        changed_fields: ['name', 'channel_id', 'avatar'],
      },
    ]);
    expect(diff.webhooks_to_delete).toEqual([{ id: '4', name: 'raider', channel_id: GENERAL, image: null }]);
    expect(diff.skipped).toEqual([]);
  });

  it('finds a webhook a restore made under its new id, its uploaded avatar by the image', () => {
    const diff = sut(
      [kept('1', 'Feed', { avatar: 'hash-a', image: digest('a') })],
      [live('7', 'Feed', { avatar: 'new-hash', image: digest('a') })],
      { replacements: [{ kind: 'webhook', original_id: '1', replacement_id: '7' }] },
    );
    expect([diff.webhooks_to_create, diff.webhooks_to_update, diff.webhooks_to_delete]).toEqual([[], [], []]);
  });

  it('skips a webhook whose channel is gone and not restored', () => {
    const diff = sut([kept('1', 'Feed', { channel_id: '999' })], []);
    expect(diff.webhooks_to_create).toEqual([]);
    expect(diff.skipped).toEqual([
      { scope: 'webhooks', id: '1', name: 'Feed', reason: SKIP_REASON.webhookChannelNotRestored },
    ]);
  });

  it('skips the whole scope for a snapshot without webhooks or a bot without Manage Webhooks', () => {
    const whole = (reason: string) => [{ scope: 'webhooks', id: 'webhooks', name: 'webhooks', reason }];
    expect(sut(undefined, []).skipped).toEqual(whole(SKIP_REASON.webhooksNotInSnapshot));
    expect(sut([kept('1', 'Feed')], undefined).skipped).toEqual(whole(SKIP_REASON.missingManageWebhooks));
    const bot = { ...BOT, permissions: ALL_PERMISSIONS & ~PERMISSION.MANAGE_WEBHOOKS };
    expect(sut([kept('1', 'Feed')], [], { bot }).skipped).toEqual(whole(SKIP_REASON.missingManageWebhooks));
  });
});

import { createHash } from 'node:crypto';
import { storedImage } from '../../snapshots/images/image-store';
import { stepSandbox } from '../../../../../test/support/restore-step-sandbox';
import { restoreWebhooks } from './webhook-step';

/** 1x1 PNGs of two colours: the guild's avatar and a raider's. */
const png = (base64: string) => Buffer.from(base64, 'base64');
const AVATAR = png(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
);
const RAIDER_AVATAR = png(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
);
const dataUri = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;
const digestOf = (bytes: Buffer) => storedImage({ bytes, content_type: 'image/png' }).digest;

/** RestoreWebhooks against the sandbox platform. */
describe('the webhooks step', () => {
  const sandbox = stepSandbox();

  function seed() {
    return sandbox.seed((spec) => {
      spec.setup = {
        webhooks: [
          {
            name: 'Feed',
            channel: 'general',
            avatar: {
              hash: createHash('md5').update(AVATAR).digest('hex'),
              image: { bytes: AVATAR, contentType: 'image/png' },
            },
          },
          { name: 'Alerts', channel: 'announcements' },
          { name: 'Builds', channel: 'general' },
        ],
      };
    });
  }

  /** The guild's webhooks as comparable values: name, channel name, avatar's digest. */
  async function webhooks(guildId: string) {
    const channels = new Map(
      (await sandbox.state(guildId)).channels.map((channel) => [channel.id, channel.name]),
    );
    const listed = await sandbox.client.listWebhooks(guildId);
    const described = [];
    for (const webhook of listed) {
      const avatar = webhook.avatar
        ? digestOf((await sandbox.client.readWebhookAvatar({ id: webhook.id, avatar: webhook.avatar })).bytes)
        : null;
      described.push({ name: webhook.name, channel: channels.get(webhook.channel_id), avatar });
    }
    return described.sort((a, b) => a.name.localeCompare(b.name));
  }

  it('makes deleted webhooks anew with their avatars and new addresses, sets back and deletes', async () => {
    const guild = seed();
    const target = await sandbox.snapshot(guild.guildId);
    const before = await webhooks(guild.guildId);
    expect(before).toEqual([
      { name: 'Alerts', channel: 'announcements', avatar: null },
      { name: 'Builds', channel: 'general', avatar: null },
      { name: 'Feed', channel: 'general', avatar: digestOf(AVATAR) },
    ]);
    const { setup, channels } = guild;
    await sandbox.client.deleteWebhook(setup.webhooks.Feed);
    await sandbox.client.updateWebhook(setup.webhooks.Alerts, {
      name: 'Owned',
      avatar: dataUri(RAIDER_AVATAR),
      channel_id: channels.general,
    });
    await sandbox.client.createWebhook(channels.general, { name: 'raider' });

    const run = await sandbox.runToEnd(restoreWebhooks, guild.guildId, target, ['webhooks']);
    expect({ created: run.created, updated: run.updated, deleted: run.deleted }).toEqual({
      created: 1,
      updated: 1,
      deleted: 1,
    });
    expect(await webhooks(guild.guildId)).toEqual(before);
    const live = await sandbox.client.listWebhooks(guild.guildId);
    const feed = live.find((webhook) => webhook.name === 'Feed')!;
    expect([...run.newWebhooks.values()]).toEqual([
      {
        original_id: setup.webhooks.Feed,
        webhook_id: feed.id,
        name: 'Feed',
        channel_id: channels.general,
        channel_name: 'general',
        address: expect.stringMatching(new RegExp(`/webhooks/${feed.id}/[\\w-]+$`)),
      },
    ]);
    // The step's outcomes, which the workflow engine keeps, never hold an address.
    expect(JSON.stringify(run.calls)).not.toContain('/webhooks/');
    const again = await sandbox.runToEnd(restoreWebhooks, guild.guildId, target, ['webhooks']);
    expect(again.created + again.updated + again.deleted).toBe(0);
  });

  it('takes over a webhook an earlier attempt made instead of making it twice', async () => {
    const guild = seed();
    const target = await sandbox.snapshot(guild.guildId);
    await sandbox.client.deleteWebhook(guild.setup.webhooks.Builds);
    // The earlier attempt's webhook, whose new id and address were never recorded.
    const orphan = await sandbox.client.createWebhook(guild.channels.general, { name: 'Builds' });

    const run = await sandbox.runToEnd(restoreWebhooks, guild.guildId, target, ['webhooks']);
    expect({ created: run.created, deleted: run.deleted }).toEqual({ created: 1, deleted: 0 });
    const builds = (await sandbox.client.listWebhooks(guild.guildId)).filter(
      (webhook) => webhook.name === 'Builds',
    );
    expect(builds.map((webhook) => webhook.id)).toEqual([orphan.id]);
    expect(run.newWebhooks.get(guild.setup.webhooks.Builds)?.address).toBe(orphan.address);
  });
});

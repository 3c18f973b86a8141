import { ChatPlatformClient } from '@lib/chat-platform';
import { PermissionFlagsBits as P } from 'discord-api-types/v10';
import { demoGuildSpec } from './demo-guild';
import { FakeChatPlatform } from './fake-chat-platform';
import { type JsonReply, sendJson } from '../../../../test/support/http-json';
import { fakeForSuite } from '../../../../test/support/loopback-fake';

const HOUR = 60 * 60 * 1000;

/** `PUT /guilds/{id}/incident-actions` as Discord documents it, driven by the service's client. */
describe('incident actions', () => {
  const sut = fakeForSuite(new FakeChatPlatform());
  let client: ChatPlatformClient;

  beforeAll(() => {
    client = new ChatPlatformClient({ apiBaseUrl: `${sut.url}/api`, botToken: sut.botToken });
  });

  function put(guildId: string, body: object): Promise<JsonReply> {
    return sendJson(`${sut.url}/api/v10/guilds/${guildId}/incident-actions`, 'PUT', body, {
      Authorization: `Bot ${sut.botToken}`,
    });
  }

  it('pauses invites and DMs until the given times, shows them on the guild, and resumes with null', async () => {
    const { guildId } = sut.seedGuild(demoGuildSpec());
    const until = new Date(Date.now() + HOUR).toISOString();
    expect(
      await client.setIncidentActions(guildId, { invites_disabled_until: until, dms_disabled_until: until }),
    ).toEqual({ invites_disabled_until: until, dms_disabled_until: until });
    const guild = await sendJson(`${sut.url}/api/v10/guilds/${guildId}`, 'GET', undefined, {
      Authorization: `Bot ${sut.botToken}`,
    });
    expect(guild.body.incidents_data).toEqual({ invites_disabled_until: until, dms_disabled_until: until });

    // A PUT replaces both: a field left out is resumed (the stricter reading of the docs).
    expect((await put(guildId, { invites_disabled_until: until })).body).toEqual({
      invites_disabled_until: until,
      dms_disabled_until: null,
    });
    await client.setIncidentActions(guildId, { invites_disabled_until: null, dms_disabled_until: null });
    expect(sut.guild(guildId).incidents_data).toEqual({
      invites_disabled_until: null,
      dms_disabled_until: null,
    });
  });

  it('refuses a time more than 24 hours ahead, or not a date-time', async () => {
    const { guildId } = sut.seedGuild(demoGuildSpec());
    const tooLate = await put(guildId, {
      invites_disabled_until: new Date(Date.now() + 25 * HOUR).toISOString(),
    });
    expect(tooLate).toMatchObject({ status: 400, body: { code: 50035 } });
    expect(await put(guildId, { dms_disabled_until: 'tomorrow' })).toMatchObject({ status: 400 });
    expect(sut.guild(guildId).incidents_data ?? null).toBeNull();
  });

  it('needs MANAGE_GUILD', async () => {
    const { guildId } = sut.seedGuild({
      ...demoGuildSpec(),
      bot: { permissions: P.ManageRoles | P.ViewChannel },
    });
    const refused = await put(guildId, { invites_disabled_until: null });
    expect(refused).toMatchObject({ status: 403, body: { code: 50013 } });
  });
});

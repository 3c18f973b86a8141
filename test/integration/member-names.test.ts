import type { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { openDataSource } from '../support/database';
import { RecoveryStack } from '../support/recovery-stack';
import { ADMIN, MEMBER, OWNER } from '../support/restore-scenario';

/** On the platform, with a name, but a member of another guild only. */
const OUTSIDER = '200000000000000051';
/** A platform user nobody has seen. */
const NOBODY = '200000000000000052';

type Item = { user_id: string | null; platform_user_id: string; name: string | null };

/**
 * `GET /api/v1/guilds/{id}/member-names` on recovery against the fake platform: the names a guild
 * knows its members by, for managers of that guild only, with our user ids mapped through the user
 * directory (docs/security.md).
 */
describe('member names', () => {
  const stack = new RecoveryStack();
  let dataSource: DataSource;
  let guildId: string;

  beforeAll(async () => {
    dataSource = await openDataSource();
    await stack.start();
    ({ guildId } = await stack.registeredGuild(`Names ${uuidv7().slice(-6)}`));
    stack.platform.seedGuild({
      name: `Elsewhere ${uuidv7().slice(-6)}`,
      owner: { id: OUTSIDER, username: 'outsider' },
    });
  }, 120_000);

  afterAll(async () => {
    await stack.stop();
    await dataSource?.destroy();
  });

  const names = (query: string, who = stack.user(OWNER)) =>
    stack.call(stack.recovery, 'GET', `/api/v1/guilds/${guildId}/member-names${query}`, who);

  it("names the guild's members by platform id, and no one who is not a member", async () => {
    const answer = await names(
      `?platform_user_id=${OWNER}&platform_user_id=${ADMIN}&platform_user_id=${MEMBER}` +
        `&platform_user_id=${OUTSIDER}&platform_user_id=${NOBODY}&platform_user_id=${ADMIN}`,
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      items: [
        { user_id: null, platform_user_id: OWNER, name: 'owner' },
        { user_id: null, platform_user_id: ADMIN, name: 'admin' },
        { user_id: null, platform_user_id: MEMBER, name: 'member' },
        // A name the platform has, in a guild this one is not: not ours to tell.
        { user_id: null, platform_user_id: OUTSIDER, name: null },
        { user_id: null, platform_user_id: NOBODY, name: null },
      ],
    });
  });

  it('maps our user ids through the user directory; an id it has never seen gets no item', async () => {
    // The admin uses recovery once: the directory records who they are.
    const admin = stack.user(ADMIN);
    expect((await stack.call(stack.recovery, 'GET', `/api/v1/guilds/${guildId}`, admin)).status).toBe(200);
    const unseen = uuidv7();
    const answer = await names(`?user_id=${admin.user_id}&user_id=${unseen}&platform_user_id=${MEMBER}`);
    expect(answer).toMatchObject({ status: 200 });
    expect(answer.body.items as Item[]).toEqual([
      { user_id: admin.user_id, platform_user_id: ADMIN, name: 'admin' },
      { user_id: null, platform_user_id: MEMBER, name: 'member' },
    ]);
    // A single id is a list of one.
    expect((await names(`?user_id=${admin.user_id}`)).body).toEqual({
      items: [{ user_id: admin.user_id, platform_user_id: ADMIN, name: 'admin' }],
    });
    expect((await names('')).body).toEqual({ items: [] });
  });

  it("records the user another service's MANAGE_GUILD check reports, without replacing one recovery saw", async () => {
    const reported = uuidv7();
    await dataSource.query(`DELETE FROM recovery.user_directory WHERE platform_user_id = $1`, [MEMBER]);
    const billing = { kind: 'service', service: 'billing' } as const;
    const check = (userId: string) =>
      stack.call(
        stack.recovery,
        'GET',
        `/internal/v1/guilds/${guildId}/access/${MEMBER}?user_id=${userId}`,
        billing,
      );
    expect(await check(reported)).toMatchObject({ status: 200, body: { manage_guild: false } });
    expect((await names(`?user_id=${reported}`)).body).toEqual({
      items: [{ user_id: reported, platform_user_id: MEMBER, name: 'member' }],
    });

    // The admin's pair came from their own request, signed by the gateway: a report does not move it.
    const admin = stack.user(ADMIN);
    await stack.call(stack.recovery, 'GET', `/api/v1/guilds/${guildId}`, admin);
    const claimed = uuidv7();
    const adminCheck = await stack.call(
      stack.recovery,
      'GET',
      `/internal/v1/guilds/${guildId}/access/${ADMIN}?user_id=${claimed}`,
      billing,
    );
    expect(adminCheck.status).toBe(200);
    expect((await names(`?user_id=${claimed}&user_id=${admin.user_id}`)).body).toEqual({
      items: [{ user_id: admin.user_id, platform_user_id: ADMIN, name: 'admin' }],
    });

    expect(await check('not-a-uuid')).toMatchObject({ status: 400, body: { code: 'ErrValidation' } });
  });

  it('refuses bad input with a problem naming the field', async () => {
    const tooMany = Array.from(
      { length: 51 },
      (_, i) => `platform_user_id=${300000000000000000n + BigInt(i)}`,
    );
    for (const [query, field] of [
      ['?platform_user_id=abc', 'platform_user_id'],
      ['?platform_user_id=<@200000000000000002>', 'platform_user_id'],
      ['?user_id=not-a-uuid', 'user_id'],
      [`?${tooMany.join('&')}`, 'platform_user_id'],
      ['?who=alice', 'who'],
    ] as const) {
      const answer = await names(query);
      expect([query, answer.status, answer.contentType]).toEqual([
        query,
        400,
        expect.stringContaining('application/problem+json'),
      ]);
      expect(answer.body).toMatchObject({
        code: 'ErrValidation',
        errors: [expect.objectContaining({ field })],
      });
    }
  });

  it('answers one 403 to whoever cannot manage the guild, before looking at the query', async () => {
    for (const [who, query] of [
      [MEMBER, `?platform_user_id=${ADMIN}`],
      [MEMBER, '?platform_user_id=abc'],
      [OUTSIDER, `?platform_user_id=${OWNER}`],
    ] as const) {
      const answer = await names(query, stack.user(who));
      expect([who, query, answer.status, answer.body.code]).toEqual([who, query, 403, 'ErrForbidden']);
    }
    const unknownGuild = await stack.call(
      stack.recovery,
      'GET',
      `/api/v1/guilds/${uuidv7()}/member-names?platform_user_id=${OWNER}`,
      stack.user(OWNER),
    );
    expect(unknownGuild).toMatchObject({ status: 403, body: { code: 'ErrForbidden' } });
    expect(
      (await stack.call(stack.recovery, 'GET', `/api/v1/guilds/${guildId}/member-names`, null)).status,
    ).toBe(401);
  });
});

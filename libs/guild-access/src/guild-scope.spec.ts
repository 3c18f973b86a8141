import { Body, Controller, Injectable, type INestApplication, Post } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { GuildAccess, InternalIdentity } from '@lib/contracts';
import { defineNotFound, type DomainError, ProblemDetailsFilter } from '@lib/problem-details';
import { createValidationPipe } from '@lib/runtime';
import { IsInt, IsUUID, Max } from 'class-validator';
import type { NextFunction, Request, Response } from 'express';
import request from 'supertest';
import type { App } from 'supertest/types';
import {
  GuildAccessSource,
  type GuildResourceLookup,
  ManagedGuild,
  RequireManageGuild,
  RequireManageGuildOf,
  ScopeGuildId,
} from './guild-scope';
import type { UserIdentity } from './manage-guild';

const OWNER = '100000000000000001';
const ADMIN = '100000000000000002';
const STRANGER = '100000000000000003';
const ACTIVE = '0190a000-0000-7000-8000-000000000001';
const INACTIVE = '0190a000-0000-7000-8000-000000000002';
const UNKNOWN = '0190a000-0000-7000-8000-00000000ffff';
const THING = '0190b000-0000-7000-8000-000000000001';
const OTHER_THING = '0190b000-0000-7000-8000-000000000002';
const PAID_BY_STRANGER = '0190b000-0000-7000-8000-000000000003';

class SettingsDto {
  @IsInt()
  @Max(10)
  threshold!: number;
}

class ThingDto {
  @IsUUID()
  thing_id!: string;

  @IsInt()
  @Max(10)
  count!: number;
}

/** Guild ACTIVE, managed by OWNER and ADMIN; guild INACTIVE, the bot gone, OWNER recorded as its owner. */
class FakeAccessSource extends GuildAccessSource {
  readonly asked: string[] = [];
  failWith: Error | null = null;

  access(guildId: string, platformUserId: string): Promise<GuildAccess> {
    this.asked.push(guildId);
    if (this.failWith) return Promise.reject(this.failWith);
    if (guildId !== ACTIVE && guildId !== INACTIVE) {
      return Promise.reject(defineNotFound('ErrGuildNotFound', 'Guild')());
    }
    const active = guildId === ACTIVE;
    return Promise.resolve({
      guild_id: guildId,
      platform_guild_id: '900000000000000001',
      name: 'Guild',
      active,
      manage_guild: active ? platformUserId !== STRANGER : platformUserId === OWNER,
      owner_platform_user_id: OWNER,
    });
  }
}

/** THING belongs to ACTIVE, OTHER_THING to INACTIVE; STRANGER pays for PAID_BY_STRANGER (of ACTIVE). */
@Injectable()
class ThingLookup implements GuildResourceLookup {
  find(id: string, user: UserIdentity): Promise<{ guildId: string; ownedByCaller: boolean } | null> {
    const guildId = { [THING]: ACTIVE, [OTHER_THING]: INACTIVE, [PAID_BY_STRANGER]: ACTIVE }[id];
    if (!guildId) return Promise.resolve(null);
    return Promise.resolve({
      guildId,
      ownedByCaller: id === PAID_BY_STRANGER && user.platform_user_id === STRANGER,
    });
  }

  notFound(): DomainError {
    return defineNotFound('ErrThingNotFound', 'Thing')();
  }
}

@Controller()
class SampleController {
  @Post('guilds/:guildId/settings')
  @RequireManageGuild({ params: 'guildId' })
  settings(@ManagedGuild() guild: GuildAccess, @Body() body: SettingsDto) {
    return { guild_id: guild.guild_id, threshold: body.threshold };
  }

  @Post('checkout')
  @RequireManageGuild({ body: 'guild_id' })
  checkout(@ManagedGuild() guild: GuildAccess) {
    return { guild_id: guild.guild_id };
  }

  @Post('things/use')
  @RequireManageGuildOf(ThingLookup, { body: 'thing_id' })
  use(@ScopeGuildId() guildId: string, @Body() body: ThingDto) {
    return { guild_id: guildId, count: body.count };
  }
}

type Answer = { status: number; body: Record<string, unknown> };

describe('RequireManageGuild and RequireManageGuildOf', () => {
  let app: INestApplication;
  const source = new FakeAccessSource();

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      controllers: [SampleController],
      providers: [ThingLookup, { provide: GuildAccessSource, useValue: source }],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    // What InternalAuthGuard does with a verified token: the identity on the request.
    app.use((req: Request & { identity?: InternalIdentity }, _res: Response, next: NextFunction) => {
      const user = req.header('x-test-user');
      if (user === 'service') req.identity = { kind: 'service', service: 'billing' };
      else if (user)
        req.identity = { kind: 'user', user_id: `u-${user}`, platform_user_id: user, session_id: 's' };
      next();
    });
    app.useGlobalFilters(new ProblemDetailsFilter());
    app.useGlobalPipes(createValidationPipe());
    await app.init();
  });

  afterAll(() => app.close());

  beforeEach(() => {
    source.asked.length = 0;
    source.failWith = null;
  });

  async function post(path: string, user: string, body: unknown): Promise<Answer> {
    const response = await request(app.getHttpServer() as App)
      .post(path)
      .set('x-test-user', user)
      .send(body as object);
    return { status: response.status, body: response.body as Record<string, unknown> };
  }

  /** The problem body without what differs between any two requests. */
  const shape = ({ status, body }: Answer) => {
    const { request_id: _requestId, instance: _instance, ...rest } = body;
    return { status, ...rest };
  };

  describe('a guild route', () => {
    it('validates the body only for a manager', async () => {
      expect(await post(`/guilds/${ACTIVE}/settings`, ADMIN, { threshold: 99 })).toMatchObject({
        status: 400,
        body: { code: 'ErrValidation' },
      });
      expect(await post(`/guilds/${ACTIVE}/settings`, ADMIN, { threshold: 3 })).toEqual({
        status: 201,
        body: { guild_id: ACTIVE, threshold: 3 },
      });
    });

    it('answers everyone else one 403, whatever the guild and the body', async () => {
      const refusal = shape(await post(`/guilds/${ACTIVE}/settings`, STRANGER, { threshold: 3 }));
      expect(refusal).toMatchObject({ status: 403, code: 'ErrForbidden' });
      for (const [guildId, body] of [
        [ACTIVE, { threshold: 99 }],
        [ACTIVE, 'not json at all'],
        [INACTIVE, { threshold: 3 }],
        [UNKNOWN, { threshold: 99 }],
        ['not-a-uuid', {}],
      ] as const) {
        expect([guildId, body, shape(await post(`/guilds/${guildId}/settings`, STRANGER, body))]).toEqual([
          guildId,
          body,
          refusal,
        ]);
      }
      expect(shape(await post(`/guilds/${INACTIVE}/settings`, ADMIN, { threshold: 3 }))).toEqual(refusal);
    });

    it('tells only a manager that the guild is inactive', async () => {
      expect(await post(`/guilds/${INACTIVE}/settings`, OWNER, { threshold: 99 })).toMatchObject({
        status: 409,
        body: { code: 'ErrGuildInactive' },
      });
    });

    it('reads a guild named in the body; a missing or malformed one is nobody’s', async () => {
      expect(await post('/checkout', OWNER, { guild_id: ACTIVE })).toEqual({
        status: 201,
        body: { guild_id: ACTIVE },
      });
      const refusal = shape(await post('/checkout', STRANGER, { guild_id: ACTIVE }));
      for (const body of [{}, { guild_id: 42 }, { guild_id: 'x' }, [ACTIVE], { guild_id: UNKNOWN }]) {
        expect([body, shape(await post('/checkout', OWNER, body))]).toEqual([body, refusal]);
      }
    });

    it('passes on a failure to answer, and refuses a caller that is not a user', async () => {
      source.failWith = new Error('recovery down');
      expect((await post(`/guilds/${ACTIVE}/settings`, OWNER, { threshold: 3 })).status).toBe(500);
      source.failWith = null;
      expect(await post(`/guilds/${ACTIVE}/settings`, 'service', { threshold: 3 })).toMatchObject({
        status: 401,
        body: { code: 'ErrUnauthenticated' },
      });
      expect(source.asked).toEqual([ACTIVE]);
    });
  });

  describe('a resource route', () => {
    it('lets a manager of the resource’s guild through to validation', async () => {
      expect(await post('/things/use', ADMIN, { thing_id: THING, count: 99 })).toMatchObject({
        status: 400,
        body: { code: 'ErrValidation' },
      });
      expect(await post('/things/use', ADMIN, { thing_id: THING, count: 1 })).toEqual({
        status: 201,
        body: { guild_id: ACTIVE, count: 1 },
      });
    });

    it('answers anyone else as for a missing resource, whatever the body', async () => {
      const missing = shape(
        await post('/things/use', ADMIN, { thing_id: OTHER_THING.replace(/2$/, '9'), count: 1 }),
      );
      expect(missing).toMatchObject({ status: 404, code: 'ErrThingNotFound' });
      for (const [user, body] of [
        [STRANGER, { thing_id: THING, count: 1 }],
        [STRANGER, { thing_id: THING, count: 99 }],
        [STRANGER, { thing_id: THING }],
        [ADMIN, { thing_id: OTHER_THING, count: 1 }],
        [ADMIN, { thing_id: 'nope', count: 1 }],
        [ADMIN, { count: 99 }],
      ] as const) {
        expect([user, body, shape(await post('/things/use', user, body))]).toEqual([user, body, missing]);
      }
    });

    it('lets its owner see it without managing the guild, and tells a manager the guild is inactive', async () => {
      expect(await post('/things/use', STRANGER, { thing_id: PAID_BY_STRANGER, count: 2 })).toEqual({
        status: 201,
        body: { guild_id: ACTIVE, count: 2 },
      });
      expect(source.asked).toEqual([]);
      expect(await post('/things/use', OWNER, { thing_id: OTHER_THING, count: 99 })).toMatchObject({
        status: 409,
        body: { code: 'ErrGuildInactive' },
      });
    });
  });
});

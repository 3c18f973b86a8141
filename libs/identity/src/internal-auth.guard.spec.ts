import { Controller, Get, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { INTERNAL_TOKEN_HEADER, type InternalIdentity } from '@lib/contracts';
import { ProblemDetailsFilter } from '@lib/problem-details';
import request from 'supertest';
import type { App } from 'supertest/types';
import { IdentityModule } from './identity.module';
import { CurrentIdentity, PublicRoute, ServiceRoute } from './internal-auth.guard';
import { InternalTokenCodec } from './internal-token';

const secret = 's'.repeat(40);

@Controller()
class SampleController {
  @Get('whoami')
  whoami(@CurrentIdentity() identity: InternalIdentity): InternalIdentity {
    return identity;
  }

  @ServiceRoute()
  @Get('internal')
  internal(@CurrentIdentity() identity: InternalIdentity): InternalIdentity {
    return identity;
  }

  @PublicRoute()
  @Get('open')
  open(): { ok: true } {
    return { ok: true };
  }
}

describe('InternalAuthGuard', () => {
  let app: INestApplication;
  const server = () => app.getHttpServer() as App;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [IdentityModule.forService({ secret, service: 'recovery' })],
      controllers: [SampleController],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.useGlobalFilters(new ProblemDetailsFilter());
    await app.init();
  });

  afterAll(async () => {
    await app.close();
  });

  it('puts the verified identity on the request', async () => {
    const identity: InternalIdentity = { kind: 'user', user_id: 'u', platform_user_id: '1', session_id: 's' };
    const token = await new InternalTokenCodec(secret, 'gateway').sign(identity);
    const response = await request(server()).get('/whoami').set(INTERNAL_TOKEN_HEADER, token);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(identity);
  });

  it('answers 401 with a problem body without a token or with a forged one', async () => {
    const forged = await new InternalTokenCodec('f'.repeat(40), 'gateway').sign({
      kind: 'service',
      service: 'billing',
    });
    for (const token of [undefined, forged]) {
      const call = request(server()).get('/whoami');
      const response = await (token ? call.set(INTERNAL_TOKEN_HEADER, token) : call);
      expect(response.status).toBe(401);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(JSON.parse(response.text)).toMatchObject({ code: 'ErrUnauthenticated', status: 401 });
    }
  });

  it('lets only services call a service route', async () => {
    const codec = new InternalTokenCodec(secret, 'gateway');
    const user = await codec.sign({ kind: 'user', user_id: 'u', platform_user_id: '1', session_id: 's' });
    const service = await codec.sign({ kind: 'service', service: 'billing' });
    const refused = await request(server()).get('/internal').set(INTERNAL_TOKEN_HEADER, user);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text)).toMatchObject({ code: 'ErrForbidden' });
    await request(server())
      .get('/internal')
      .set(INTERNAL_TOKEN_HEADER, service)
      .expect(200, { kind: 'service', service: 'billing' });
  });

  it('lets public routes through', async () => {
    await request(server()).get('/open').expect(200, { ok: true });
  });
});

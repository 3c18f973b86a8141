import { Controller, Get } from '@nestjs/common';
import { INTERNAL_TOKEN_HEADER, type InternalIdentity } from '@lib/contracts';
import request from 'supertest';
import { guardedServerForSuite } from '../../../test/support/guarded-app';
import { CurrentIdentity, PublicRoute, ServiceRoute } from './internal-auth.guard';
import { generateInternalKeys } from './internal-keys';
import { InternalTokenCodec } from './internal-token';

const keys = generateInternalKeys();
const gateway = InternalTokenCodec.fromKeySet('gateway', keys);
const billing = InternalTokenCodec.fromKeySet('billing', keys);
const intake = InternalTokenCodec.fromKeySet('webhook-intake', keys);

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

  @ServiceRoute('webhook-intake')
  @Get('intake-only')
  intakeOnly(@CurrentIdentity() identity: InternalIdentity): InternalIdentity {
    return identity;
  }

  @PublicRoute()
  @Get('open')
  open(): { ok: true } {
    return { ok: true };
  }
}

describe('InternalAuthGuard', () => {
  const server = guardedServerForSuite('recovery', keys, { controllers: [SampleController] });

  it('puts the verified identity on the request', async () => {
    const identity: InternalIdentity = { kind: 'user', user_id: 'u', platform_user_id: '1', session_id: 's' };
    const token = await gateway.sign(identity, 'recovery');
    const response = await request(server()).get('/whoami').set(INTERNAL_TOKEN_HEADER, token);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(identity);
  });

  it('answers 401 with a problem body without a token or with a forged one', async () => {
    const stranger = InternalTokenCodec.fromKeySet('billing', generateInternalKeys());
    const forged = await stranger.sign({ kind: 'service', service: 'billing' }, 'recovery');
    for (const token of [undefined, forged]) {
      const call = request(server()).get('/whoami');
      const response = await (token ? call.set(INTERNAL_TOKEN_HEADER, token) : call);
      expect(response.status).toBe(401);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(JSON.parse(response.text)).toMatchObject({ code: 'ErrUnauthenticated', status: 401 });
    }
  });

  it('lets only services call a service route', async () => {
    const user = await gateway.sign(
      { kind: 'user', user_id: 'u', platform_user_id: '1', session_id: 's' },
      'recovery',
    );
    const service = await billing.sign({ kind: 'service', service: 'billing' }, 'recovery');
    const refused = await request(server()).get('/internal').set(INTERNAL_TOKEN_HEADER, user);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text)).toMatchObject({ code: 'ErrForbidden' });
    await request(server())
      .get('/internal')
      .set(INTERNAL_TOKEN_HEADER, service)
      .expect(200, { kind: 'service', service: 'billing' });
  });

  it('lets only the named services call a route that names them', async () => {
    const other = await billing.sign({ kind: 'service', service: 'billing' }, 'recovery');
    const named = await intake.sign({ kind: 'service', service: 'webhook-intake' }, 'recovery');
    const refused = await request(server()).get('/intake-only').set(INTERNAL_TOKEN_HEADER, other);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text)).toMatchObject({ code: 'ErrForbidden' });
    await request(server())
      .get('/intake-only')
      .set(INTERNAL_TOKEN_HEADER, named)
      .expect(200, { kind: 'service', service: 'webhook-intake' });
  });

  it('lets public routes through', async () => {
    await request(server()).get('/open').expect(200, { ok: true });
  });
});

import { bucketHash } from './rate-limiter';
import { type RouteDefinition, Router, decodePath } from './router';

const routes: (RouteDefinition & { name: string })[] = [
  { name: 'me', method: 'GET', path: '/users/@me' },
  { name: 'role', method: 'PATCH', path: '/guilds/:guild_id/roles/:role_id' },
  { name: 'deleteRole', method: 'DELETE', path: '/guilds/:guild_id/roles/:role_id' },
  { name: 'channel', method: 'PATCH', path: '/channels/:channel_id' },
  { name: 'overwrite', method: 'PUT', path: '/channels/:channel_id/permissions/:overwrite_id' },
];

describe(Router.name, () => {
  const sut = new Router(routes);

  it('matches a template and extracts its parameters', () => {
    const match = sut.match('PATCH', '/guilds/111111111111111111/roles/222222222222222222');
    expect(match).toMatchObject({
      route: { name: 'role' },
      params: { guild_id: '111111111111111111', role_id: '222222222222222222' },
    });
  });

  it('keys buckets by method, template and major parameter (guild or channel), not by minor ids', () => {
    const a = sut.match('PATCH', '/guilds/1/roles/2');
    const b = sut.match('PATCH', '/guilds/1/roles/3');
    const c = sut.match('PATCH', '/guilds/9/roles/2');
    const d = sut.match('DELETE', '/guilds/1/roles/2');
    if (typeof a !== 'object' || typeof b !== 'object' || typeof c !== 'object' || typeof d !== 'object') {
      throw new Error('expected matches');
    }
    expect(a.bucket).toEqual({
      key: 'PATCH /guilds/:guild_id/roles/:role_id 1',
      hash: bucketHash('PATCH', '/guilds/:guild_id/roles/:role_id'),
    });
    expect(b.bucket).toEqual(a.bucket);
    expect(c.bucket.key).not.toBe(a.bucket.key);
    expect(c.bucket.hash).toBe(a.bucket.hash);
    expect(d.bucket.hash).not.toBe(a.bucket.hash);
    expect(sut.match('PUT', '/channels/5/permissions/6')).toMatchObject({
      bucket: { key: 'PUT /channels/:channel_id/permissions/:overwrite_id 5' },
    });
  });

  it('puts routes without a major parameter in one global bucket', () => {
    expect(sut.match('GET', '/users/@me')).toMatchObject({ bucket: { key: 'GET /users/@me global' } });
  });

  it('answers method-not-allowed for a known path and undefined for an unknown one', () => {
    expect(sut.match('GET', '/channels/5')).toBe('method-not-allowed');
    expect(sut.match('GET', '/channels/5/nothing')).toBeUndefined();
    expect(sut.match('GET', '/users/@me/')).toBeUndefined();
  });
});

describe(decodePath.name, () => {
  it('decodes each segment, keeping an encoded slash and malformed escapes as sent', () => {
    expect(decodePath('/users/%40me/channels')).toBe('/users/@me/channels');
    expect(decodePath('/guilds/1/a%2Fb')).toBe('/guilds/1/a%2Fb');
    expect(decodePath('/guilds/%E0%A4%A')).toBe('/guilds/%E0%A4%A');
  });
});

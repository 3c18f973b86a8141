import { matchRoute, pathTo, ROUTES } from './routes';

const GUILD = '0190a000-0000-7000-8000-000000000001';

describe('dashboard routes', () => {
  it('matches each page with its parameters, and nothing else', () => {
    expect(matchRoute('/')).toEqual({ name: 'picker', params: {} });
    expect(matchRoute(`/guilds/${GUILD}`)).toEqual({ name: 'guild', params: { guildId: GUILD } });
    expect(matchRoute(`/guilds/${GUILD}/snapshots/abc/`)).toEqual({
      name: 'snapshot',
      params: { guildId: GUILD, snapshotId: 'abc' },
    });
    expect(matchRoute(`/guilds/${GUILD}/restore/job-1`)).toEqual({
      name: 'restoreJob',
      params: { guildId: GUILD, jobId: 'job-1' },
    });
    expect(matchRoute('/guilds')).toBeNull();
    expect(matchRoute('/nowhere')).toBeNull();
  });

  it('builds paths the matcher reads back, with a query', () => {
    const path = pathTo('restore', { guildId: GUILD }, { snapshot: 's 1', scope: undefined });
    expect(path).toBe(`/guilds/${GUILD}/restore?snapshot=s+1`);
    expect(matchRoute(path.split('?')[0])).toEqual({ name: 'restore', params: { guildId: GUILD } });
    for (const name of Object.keys(ROUTES) as (keyof typeof ROUTES)[]) {
      const params = { guildId: 'g', snapshotId: 's', jobId: 'j' };
      expect(matchRoute(pathTo(name, params as never))?.name).toBe(name);
    }
  });
});

import type { DataSource } from 'typeorm';
import { createKeyValueStore } from './key-value.module';
import { PostgresKeyValueStore } from './postgres-key-value.repository';
import { RedisKeyValueStore } from './redis-key-value-store';

describe(createKeyValueStore.name, () => {
  const dataSource = {} as DataSource;

  it.each([undefined, ''])('uses the Postgres table when the Redis URL is %p', async (redisUrl) => {
    const sut = createKeyValueStore({ redisUrl, schema: 'identity' }, dataSource);
    expect(sut).toBeInstanceOf(PostgresKeyValueStore);
    await sut.close();
  });

  it('uses Redis when a URL is set', async () => {
    const sut = createKeyValueStore(
      { redisUrl: 'redis://127.0.0.1:6379', redisOptions: { lazyConnect: true }, schema: 'identity' },
      dataSource,
    );
    expect(sut).toBeInstanceOf(RedisKeyValueStore);
    await sut.close();
  });
});

describe(PostgresKeyValueStore.name, () => {
  it('refuses a schema that is not a plain lower-case name (it goes into SQL)', () => {
    expect(() => new PostgresKeyValueStore({} as DataSource, { schema: 'x"; DROP TABLE y; --' })).toThrow(
      /not a schema name/,
    );
  });
});

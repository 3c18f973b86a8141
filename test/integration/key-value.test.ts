import {
  dropKeyValueTableSql,
  keyValueTableSql,
  type KeyValueStore,
  PostgresKeyValueStore,
  RedisKeyValueStore,
} from '@lib/key-value';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { freePort } from '../support/app-process';
import { waitFor } from '../support/wait';

interface Backend {
  name: string;
  open(): Promise<KeyValueStore>;
  close(): Promise<void>;
}

/** Redis at REDIS_URL; every key of a run carries the run's own prefix (the server is shared). */
function redisBackend(): Backend {
  let store: RedisKeyValueStore | undefined;
  return {
    name: 'RedisKeyValueStore',
    open: () => {
      store = new RedisKeyValueStore(process.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
      return Promise.resolve(store);
    },
    close: async () => store?.close(),
  };
}

/** A scratch schema holding a key_values table made by the migrations' own DDL. */
async function scratchTable(dataSource: DataSource, prefix: string): Promise<string> {
  const schema = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  await dataSource.query(`CREATE SCHEMA "${schema}"`);
  for (const sql of keyValueTableSql(schema)) await dataSource.query(sql);
  return schema;
}

/** Postgres in a scratch schema, dropped afterwards. */
function postgresBackend(): Backend {
  let schema: string | undefined;
  // Room for every caller of a concurrency case to hold its own connection at once.
  const dataSource = new DataSource({ type: 'postgres', url: process.env.DATABASE_URL, extra: { max: 25 } });
  let store: PostgresKeyValueStore | undefined;
  return {
    name: 'PostgresKeyValueStore',
    open: async () => {
      await dataSource.initialize();
      schema = await scratchTable(dataSource, 'kv');
      store = new PostgresKeyValueStore(dataSource, { schema });
      return store;
    },
    close: async () => {
      await store?.close();
      if (!dataSource.isInitialized) return;
      if (schema) {
        for (const sql of dropKeyValueTableSql(schema)) await dataSource.query(sql);
        await dataSource.query(`DROP SCHEMA "${schema}"`);
      }
      await dataSource.destroy();
    },
  };
}

/** The same contract for both stores: the gateway and webhook intake cannot tell them apart. */
describe.each([redisBackend(), postgresBackend()])('$name', (backend) => {
  let sut: KeyValueStore;
  const prefix = `kvtest:${uuidv7()}:`;
  let n = 0;
  const newKey = () => `${prefix}${++n}`;

  beforeAll(async () => {
    sut = await backend.open();
  });

  afterAll(async () => {
    await backend.close();
  });

  const expired = (key: string) => waitFor(`${key} to expire`, async () => (await sut.get(key)) === null);

  it('answers ping', async () => {
    await expect(sut.ping()).resolves.toBeUndefined();
  });

  it('sets, reads and overwrites a value; a missing key reads as null', async () => {
    const key = newKey();
    expect(await sut.get(key)).toBeNull();
    await sut.set(key, 'first', 60);
    expect(await sut.get(key)).toBe('first');
    await sut.set(key, '{"json":"as text","ü":1}', 60);
    expect(await sut.get(key)).toBe('{"json":"as text","ü":1}');
  });

  it('forgets a value once its lifetime is over, for every operation', async () => {
    const [read, taken, claimed] = [newKey(), newKey(), newKey()];
    await sut.set(read, 'v', 1);
    await sut.set(taken, 'v', 1);
    expect(await sut.setIfAbsent(claimed, 'old', 1)).toBe(true);
    expect(await sut.get(read)).toBe('v');
    await Promise.all([expired(read), expired(taken), expired(claimed)]);
    expect(await sut.take(taken)).toBeNull();
    expect(await sut.setIfAbsent(claimed, 'new', 60)).toBe(true);
    expect(await sut.get(claimed)).toBe('new');
  });

  it('setIfAbsent stores only when the key is absent', async () => {
    const key = newKey();
    expect(await sut.setIfAbsent(key, 'a', 60)).toBe(true);
    expect(await sut.setIfAbsent(key, 'b', 60)).toBe(false);
    expect(await sut.get(key)).toBe('a');
  });

  it('setIfAbsent lets exactly one of 20 concurrent callers store the key', async () => {
    const key = newKey();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => sut.setIfAbsent(key, `caller-${i}`, 60)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await sut.get(key)).toBe(`caller-${results.indexOf(true)}`);
  });

  it('take reads and deletes at once: one of 20 concurrent callers gets the value', async () => {
    const key = newKey();
    await sut.set(key, 'once', 60);
    const taken = await Promise.all(Array.from({ length: 20 }, () => sut.take(key)));
    expect(taken.filter((value) => value !== null)).toEqual(['once']);
    expect(await sut.get(key)).toBeNull();
    expect(await sut.take(key)).toBeNull();
  });

  it('deletes a key, and deleting a missing one is no error', async () => {
    const key = newKey();
    await sut.set(key, 'v', 60);
    await sut.delete(key);
    expect(await sut.get(key)).toBeNull();
    expect(await sut.setIfAbsent(key, 'again', 60)).toBe(true);
    await expect(sut.delete(newKey())).resolves.toBeUndefined();
  });

  it('increment counts 50 concurrent calls exactly once each', async () => {
    const key = newKey();
    const counts = await Promise.all(Array.from({ length: 50 }, () => sut.increment(key, 60_000)));
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await sut.get(key)).toBe('50');
  });

  it('increment keeps the expiry of the counter it created and starts again at 1 after it', async () => {
    const key = newKey();
    expect(await sut.increment(key, 1_000)).toBe(1);
    // A later increment with a long window must not move the first one's expiry.
    expect(await sut.increment(key, 60_000)).toBe(2);
    await waitFor(`${key} to expire`, async () => (await sut.get(key)) === null, { timeoutMs: 5_000 });
    expect(await sut.increment(key, 60_000)).toBe(1);
    expect(await sut.increment(key, 60_000)).toBe(2);
  });
});

describe('RedisKeyValueStore without a server', () => {
  it('fails at once instead of queueing, so callers can fall back', async () => {
    const port = await freePort();
    const sut = new RedisKeyValueStore(`redis://127.0.0.1:${port}`, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    try {
      await expect(sut.ping()).rejects.toThrow();
      await expect(sut.setIfAbsent('k', 'v', 60)).rejects.toThrow();
    } finally {
      await sut.close();
    }
  });
});

describe('PostgresKeyValueStore housekeeping', () => {
  it('purges expired rows and keeps live ones', async () => {
    const dataSource = new DataSource({ type: 'postgres', url: process.env.DATABASE_URL, extra: { max: 2 } });
    await dataSource.initialize();
    const schema = await scratchTable(dataSource, 'kv_purge');
    const sut = new PostgresKeyValueStore(dataSource, { schema });
    try {
      await sut.set('live', 'v', 60);
      await sut.set('gone', 'v', 1);
      await sut.increment('counter', 1);
      await waitFor('gone to expire', async () => (await sut.get('gone')) === null);
      expect(await sut.purgeExpired()).toBe(2);
      const rows = await dataSource.query<{ key: string }[]>(`SELECT key FROM "${schema}".key_values`);
      expect(rows).toEqual([{ key: 'live' }]);
    } finally {
      await sut.close();
      await dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await dataSource.destroy();
    }
  });

  it('runs the purge on its own timer', async () => {
    const dataSource = new DataSource({ type: 'postgres', url: process.env.DATABASE_URL, extra: { max: 2 } });
    await dataSource.initialize();
    const schema = await scratchTable(dataSource, 'kv_timer');
    const sut = new PostgresKeyValueStore(dataSource, { schema, purgeIntervalMs: 100 });
    try {
      await sut.set('gone', 'v', 1);
      await waitFor(
        'the expired row to be purged',
        async () => (await dataSource.query<unknown[]>(`SELECT 1 FROM "${schema}".key_values`)).length === 0,
        { timeoutMs: 10_000 },
      );
    } finally {
      await sut.close();
      await dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await dataSource.destroy();
    }
  });

  it('is not ready while its table is missing', async () => {
    const dataSource = new DataSource({ type: 'postgres', url: process.env.DATABASE_URL, extra: { max: 1 } });
    await dataSource.initialize();
    const sut = new PostgresKeyValueStore(dataSource, { schema: `kv_missing_${Date.now().toString(36)}` });
    try {
      await expect(sut.ping()).rejects.toThrow(/does not exist/);
    } finally {
      await sut.close();
      await dataSource.destroy();
    }
  });
});

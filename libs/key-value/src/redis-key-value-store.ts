import { Logger } from '@nestjs/common';
import Redis, { type RedisOptions } from 'ioredis';
import type { KeyValueStore } from './key-value-store';

/**
 * KeyValueStore over one ioredis connection. Each caller passes the connection options that fit
 * it, typically fail-fast ones (`enableOfflineQueue: false`, few retries) so a request fails at
 * once while Redis is down instead of queueing behind reconnects.
 */
export class RedisKeyValueStore implements KeyValueStore {
  private readonly logger = new Logger(RedisKeyValueStore.name);
  private readonly redis: Redis;

  constructor(url: string, options: RedisOptions = {}) {
    this.redis = new Redis(url, options);
    // Without a listener ioredis reports every failed reconnect as an unhandled error event; the
    // failed commands themselves reach their callers.
    this.redis.on('error', (error: Error) =>
      this.logger.debug({ err: error.message }, 'redis connection error'),
    );
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(key, value, 'EX', ttlSeconds);
  }

  async setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    return (await this.redis.set(key, value, 'EX', ttlSeconds, 'NX')) === 'OK';
  }

  get(key: string): Promise<string | null> {
    return this.redis.get(key);
  }

  take(key: string): Promise<string | null> {
    return this.redis.getdel(key);
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(key);
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    // SET NX gives a new counter its expiry; INCR keeps whatever expiry the key has.
    const results = await this.redis.multi().set(key, '0', 'PX', ttlMs, 'NX').incr(key).exec();
    if (!results) throw new Error('redis discarded the increment transaction');
    for (const [error] of results) if (error) throw error;
    return Number(results[1][1]);
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

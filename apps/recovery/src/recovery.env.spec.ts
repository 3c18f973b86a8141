import { ConfigError, loadConfig } from '@lib/config';
import { generateInternalKeys } from '@lib/identity';
import { RecoveryEnv } from './recovery.env';

const keys = generateInternalKeys();
const valid = {
  DATABASE_URL: 'postgres://u@localhost:5432/db',
  INTERNAL_SIGNING_KEY: keys.signingKeys.recovery,
  INTERNAL_PUBLIC_KEYS: keys.publicKeys,
  KAFKA_BROKERS: '127.0.0.1:9092',
  DISCORD_BOT_TOKEN: 'bot-token',
  DISCORD_PUBLIC_KEY: 'a'.repeat(64),
  LICENSING_URL: 'http://licensing:3003',
};

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(RecoveryEnv, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('RecoveryEnv WORKFLOW_ENGINE', () => {
  it('is Temporal by default, which needs TEMPORAL_ADDRESS', () => {
    expect(loadConfig(RecoveryEnv, { ...valid, TEMPORAL_ADDRESS: 'temporal:7233' }).WORKFLOW_ENGINE).toBe(
      'temporal',
    );
    expect(problems(valid)).toEqual(['TEMPORAL_ADDRESS must be host:port']);
  });

  it('runs in process without TEMPORAL_ADDRESS', () => {
    const config = loadConfig(RecoveryEnv, { ...valid, WORKFLOW_ENGINE: 'in-process' });
    expect(config.WORKFLOW_ENGINE).toBe('in-process');
    expect(config.TEMPORAL_ADDRESS).toBeUndefined();
  });

  it('names the engines it knows', () => {
    expect(problems({ ...valid, WORKFLOW_ENGINE: 'cron', TEMPORAL_ADDRESS: 'temporal:7233' })).toEqual([
      'WORKFLOW_ENGINE must be one of temporal, in-process',
    ]);
  });
});

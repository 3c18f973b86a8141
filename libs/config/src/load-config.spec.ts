import { IsString } from 'class-validator';
import { BaseEnv } from './base.env';
import { ConfigError, loadConfig } from './load-config';

class SampleEnv extends BaseEnv {
  override PORT = 3000;

  @IsString()
  EXTRA!: string;
}

const valid = {
  DATABASE_URL: 'postgres://u@localhost:5432/db',
  INTERNAL_JWT_SECRET: 'x'.repeat(32),
  EXTRA: 'value',
};

describe(loadConfig.name, () => {
  it('returns typed values with defaults applied', () => {
    const config = loadConfig(SampleEnv, { ...valid, PORT: '4000', MIGRATE_ON_START: 'false' });
    expect(config.PORT).toBe(4000);
    expect(config.NODE_ENV).toBe('development');
    expect(config.MIGRATE_ON_START).toBe(false);
    expect(loadConfig(SampleEnv, valid).MIGRATE_ON_START).toBe(false);
    expect(loadConfig(SampleEnv, { ...valid, MIGRATE_ON_START: '1' }).MIGRATE_ON_START).toBe(true);
  });

  it('lists every bad or missing variable at once, without echoing values', () => {
    let error: unknown;
    try {
      loadConfig(SampleEnv, {
        DATABASE_URL: 'mysql://nope',
        INTERNAL_JWT_SECRET: 'short-secret',
        PORT: '99999',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('DATABASE_URL must be a postgres:// URL');
    expect(problems).toContain('INTERNAL_JWT_SECRET must be at least 32 characters');
    expect(problems).toContain('PORT must not be greater than 65535');
    expect(problems).toContain('EXTRA');
    expect(problems).not.toContain('short-secret');
  });

  it('refuses a boolean that is neither true nor false', () => {
    expect(() => loadConfig(SampleEnv, { ...valid, MIGRATE_ON_START: 'yes' })).toThrow(ConfigError);
  });
});

import { generateKeyPairSync } from 'node:crypto';
import { IsString } from 'class-validator';
import { BaseEnv } from './base.env';
import { ConfigError, loadConfig } from './load-config';
import { IsBrowserUrl } from './public-url';

class SampleEnv extends BaseEnv {
  override PORT = 3000;

  @IsString()
  EXTRA!: string;
}

const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
const signingKey = { kty: 'OKP', crv: 'Ed25519', kid: 'gateway', x: jwk.x, d: jwk.d };

const valid = {
  DATABASE_URL: 'postgres://u@localhost:5432/db',
  INTERNAL_SIGNING_KEY: JSON.stringify(signingKey),
  INTERNAL_PUBLIC_KEYS: JSON.stringify({ keys: [{ ...signingKey, d: undefined }] }),
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
        INTERNAL_SIGNING_KEY: 'short-secret',
        INTERNAL_PUBLIC_KEYS: JSON.stringify({ keys: [signingKey] }),
        PORT: '99999',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('DATABASE_URL must be a postgres:// URL');
    expect(problems).toContain("INTERNAL_SIGNING_KEY must be this service's Ed25519 private key");
    // A private half in the public set would hand every service the owner's key.
    expect(problems).toContain('INTERNAL_PUBLIC_KEYS must be a JWK set');
    expect(problems).toContain('PORT must not be greater than 65535');
    expect(problems).toContain('EXTRA');
    expect(problems).not.toContain('short-secret');
    expect(problems).not.toContain(String(jwk.d));
  });

  it('refuses a boolean that is neither true nor false', () => {
    expect(() => loadConfig(SampleEnv, { ...valid, MIGRATE_ON_START: 'yes' })).toThrow(ConfigError);
  });
});

/** A setting a browser loads (e.g. `PROVIDER_SDK_URL`). */
class ScriptEnv extends BaseEnv {
  override PORT = 3000;

  @IsBrowserUrl()
  SCRIPT_URL = 'https://cdn.example.com/v2/sdk';
}

function refusal(env: Record<string, string>): string | null {
  try {
    loadConfig(ScriptEnv, { ...valid, ...env });
    return null;
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
}

describe('IsBrowserUrl', () => {
  it('takes https anywhere, and plain http outside production (the sandbox on loopback)', () => {
    expect(loadConfig(ScriptEnv, valid).SCRIPT_URL).toBe('https://cdn.example.com/v2/sdk');
    for (const NODE_ENV of ['development', 'test', 'production']) {
      expect(refusal({ NODE_ENV, SCRIPT_URL: 'https://js.example.com/v2/standard' })).toBeNull();
    }
    expect(
      refusal({ NODE_ENV: 'development', SCRIPT_URL: 'http://127.0.0.1:3000/sandbox/v2/standard' }),
    ).toBeNull();
  });

  it('refuses plain http in production, and anything but an http(s) URL anywhere', () => {
    expect(refusal({ NODE_ENV: 'production', SCRIPT_URL: 'http://js.example.com/v2/standard' })).toContain(
      'SCRIPT_URL must be an https URL in production',
    );
    for (const SCRIPT_URL of [
      'javascript:alert(1)',
      '/sandbox/v2/standard',
      'ftp://x/y',
      'https://u:p@x/y',
    ]) {
      expect(refusal({ NODE_ENV: 'test', SCRIPT_URL })).toContain('SCRIPT_URL must be an http(s) URL');
    }
  });
});

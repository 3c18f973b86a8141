import { generateKeyPairSync } from 'node:crypto';
import { BaseEnv } from './base.env';
import { ConfigError, loadConfig } from './load-config';
import { IsBrowserUrl } from './public-url';

class ScriptEnv extends BaseEnv {
  override PORT = 3000;

  @IsBrowserUrl()
  SCRIPT_URL = 'https://cdn.example.com/v2/sdk';
}

const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
const signingKey = { kty: 'OKP', crv: 'Ed25519', kid: 'gateway', x: jwk.x, d: jwk.d };
const base = {
  DATABASE_URL: 'postgres://u@localhost:5432/db',
  INTERNAL_SIGNING_KEY: JSON.stringify(signingKey),
  INTERNAL_PUBLIC_KEYS: JSON.stringify({ keys: [{ ...signingKey, d: undefined }] }),
};

function refusal(env: Record<string, string>): string | null {
  try {
    loadConfig(ScriptEnv, { ...base, ...env });
    return null;
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
}

describe('IsBrowserUrl', () => {
  it('takes https anywhere, and plain http outside production (the sandbox on loopback)', () => {
    expect(loadConfig(ScriptEnv, base).SCRIPT_URL).toBe('https://cdn.example.com/v2/sdk');
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

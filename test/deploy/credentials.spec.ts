import { SERVICE_NAMES } from '@lib/contracts';
import { APP_ENVS, declaredVariables } from './app-surface';
import {
  appSecret,
  compose,
  composeServiceOf,
  containerOf,
  deploymentOf,
  envPrefix,
  PUBLIC_KEYS_OBJECT,
  UNITS,
} from './deployment-units';
import { composeEnvironment, type EnvEntry } from './manifest-files';

/**
 * Each app proves itself with credentials of its own: its internal-token signing key, its Postgres
 * role, and (gateway, webhook-intake) the Redis password, none shared with an app that does not
 * need it; everyone gets the same public keys.
 */

function k8sEntry(unitName: string, variable: string): EnvEntry | undefined {
  const unit = UNITS.find((candidate) => candidate.name === unitName)!;
  return containerOf(deploymentOf(unit)).env?.find((entry) => entry.name === variable);
}

describe('credentials', () => {
  it('names the apps as `npm run keys` does (kid = service name)', () => {
    expect(Object.keys(APP_ENVS).sort()).toEqual([...SERVICE_NAMES].sort());
  });

  describe.each(UNITS.map((unit) => [unit.name, unit] as const))('%s', (name, unit) => {
    const composed = composeEnvironment(composeServiceOf(unit)).raw;

    it("signs internal tokens with its app's own key and believes the shared public keys", () => {
      expect(k8sEntry(name, 'INTERNAL_SIGNING_KEY')?.valueFrom).toEqual({
        secretKeyRef: { name: appSecret(unit.app), key: 'INTERNAL_SIGNING_KEY' },
      });
      expect(k8sEntry(name, 'INTERNAL_PUBLIC_KEYS')?.valueFrom).toEqual({
        configMapKeyRef: { name: PUBLIC_KEYS_OBJECT, key: 'INTERNAL_PUBLIC_KEYS' },
      });
      // The variables `npm run keys` prints: <APP>_INTERNAL_SIGNING_KEY and INTERNAL_PUBLIC_KEYS.
      expect(composed.INTERNAL_SIGNING_KEY).toBe(`\${${envPrefix(unit.app)}_INTERNAL_SIGNING_KEY:-}`);
      expect(composed.INTERNAL_PUBLIC_KEYS).toBe('${INTERNAL_PUBLIC_KEYS:-}');
    });

    it('logs in to Postgres as its own role', () => {
      expect(k8sEntry(name, 'DATABASE_URL')?.valueFrom).toEqual({
        secretKeyRef: { name: appSecret(unit.app), key: 'DATABASE_URL' },
      });
      const role = `guildkeeper_${unit.app.replace(/-/g, '_')}`;
      expect(composed.DATABASE_URL).toBe(
        `postgres://${role}:\${${envPrefix(unit.app)}_DATABASE_PASSWORD:-}@postgres:5432/guildkeeper`,
      );
    });

    it('reaches Redis with the password, where it uses Redis', () => {
      if (!declaredVariables(APP_ENVS[unit.app]).has('REDIS_URL')) {
        expect(composed.REDIS_URL).toBeUndefined();
        expect(k8sEntry(name, 'REDIS_URL')).toBeUndefined();
        return;
      }
      expect(k8sEntry(name, 'REDIS_URL')?.valueFrom).toEqual({
        secretKeyRef: { name: appSecret(unit.app), key: 'REDIS_URL' },
      });
      expect(composed.REDIS_URL).toBe('redis://:${REDIS_PASSWORD:-}@redis:6379');
    });
  });

  it('runs Compose Redis with AUTH from REDIS_PASSWORD, and checks its health with it', () => {
    const redis = compose.services.redis;
    expect(composeEnvironment(redis).raw.REDIS_PASSWORD).toBe('${REDIS_PASSWORD:-}');
    // Compose turns `$$` into `$`: the shell in the container reads the variable.
    const command = (redis.command ?? []).join(' ');
    expect(command).toContain('redis-server $${REDIS_PASSWORD:+--requirepass "$$REDIS_PASSWORD"}');
    const health = ([] as string[]).concat(redis.healthcheck?.test ?? []).join(' ');
    expect(health).toContain('$${REDIS_PASSWORD:+-a "$$REDIS_PASSWORD"} ping');
  });
});

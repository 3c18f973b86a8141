import { collectSettings } from '../../../scripts/config-table';
import { checkGenerator } from '../../../scripts/generated-files';

describe('the settings table of docs/configuration.md', () => {
  // Prettier loads its plugins as ES modules, which Jest cannot: the check runs as `npm run` runs it.
  it('is what the *.env.ts classes generate (run `npm run config-table` after changing a setting)', () => {
    const output = checkGenerator('scripts/config-table.ts');
    expect(output).toContain('up to date');
  }, 60_000);

  it('lists every setting of every app, each documented', () => {
    const settings = collectSettings();
    const byName = new Map(settings.map((setting) => [setting.name, setting]));
    expect(byName.get('DATABASE_URL')?.apps).toHaveLength(6);
    expect(byName.get('WEBHOOK_SECRET')?.apps).toEqual(['webhook-intake']);
    expect(byName.get('PORT')?.defaults.get('billing')).toBe('3002');
    expect(byName.get('SESSION_TTL_S')?.defaults.get('gateway')).toBe('604800');
    expect(settings.every((setting) => setting.doc.length > 0)).toBe(true);
  }, 60_000);
});

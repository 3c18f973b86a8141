import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkGenerator } from '../../../scripts/generated-files';

const ROOT = path.resolve(__dirname, '../../..');
const SCHEMA_FILE = path.join(ROOT, 'apps/dashboard/src/api/schema.d.ts');

describe('the dashboard API types (apps/dashboard/src/api/schema.d.ts)', () => {
  // openapi-typescript is an ES module Jest cannot load: the check runs as `npm run` would run it.
  // It type-checks every controller: several seconds.
  it('are what the OpenAPI document and the controllers generate', () => {
    const output = checkGenerator('apps/dashboard/scripts/generate-client.ts');
    expect(output).toContain('up to date');
  }, 120_000);

  it('describe the answers the document leaves as a bare object, from the handlers', () => {
    const source = readFileSync(SCHEMA_FILE, 'utf8');
    // A restore job, the preview and the snapshot payload come from recovery's own declarations.
    expect(source).toMatch(/RestoreJobView: \{[^}]*cancel_requested_at: string \| null;/);
    expect(source).toMatch(/'application\/json': components\['schemas'\]\['RestorePreviewView'\]/);
    expect(source).toContain("payload?: components['schemas']['SnapshotPayload'];");
  });
});

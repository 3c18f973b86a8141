import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { REPO_ROOT } from './openapi/app-sources';
import { describeDrift } from './openapi/drift-summary';
import { buildOpenApiDocument, OPENAPI_FILE, serializeOpenApiDocument } from './openapi/openapi-document';
import { generatePluginMetadata, PLUGIN_METADATA_FILE } from './openapi/plugin-metadata.generator';

/**
 * `npm run openapi`: regenerates the swagger plugin metadata of every app's DTOs and controllers,
 * then the public API's OpenAPI document, and writes both.
 * `npm run openapi -- --check`: writes nothing; exits 1 and says what differs when either
 * committed file is not what the code generates.
 */
function committed(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

async function main(check: boolean): Promise<number> {
  const outputs: { file: string; generated: () => string | Promise<string> }[] = [
    { file: PLUGIN_METADATA_FILE, generated: generatePluginMetadata },
    // Built from the metadata file on disk: written first, unless this is a check.
    { file: OPENAPI_FILE, generated: async () => serializeOpenApiDocument(await buildOpenApiDocument()) },
  ];
  let stale = 0;
  for (const output of outputs) {
    const name = relative(REPO_ROOT, output.file);
    const before = committed(output.file);
    const after = await output.generated();
    if (before === after) {
      process.stdout.write(`${name}: up to date\n`);
    } else if (check) {
      stale++;
      process.stdout.write(`${name}: differs from the code\n${describeDrift(output.file, before, after)}\n`);
    } else {
      writeFileSync(output.file, after);
      process.stdout.write(`${name}: written\n`);
    }
  }
  if (stale) process.stdout.write('Run `npm run openapi` and commit the result.\n');
  return stale ? 1 : 0;
}

main(process.argv.includes('--check')).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`openapi failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(2);
  },
);

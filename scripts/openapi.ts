import { runGenerator, writeOrCheck } from './generated-files';
import { describeDrift } from './openapi/drift-summary';
import { buildOpenApiDocument, OPENAPI_FILE, serializeOpenApiDocument } from './openapi/openapi-document';
import { generatePluginMetadata, PLUGIN_METADATA_FILE } from './openapi/plugin-metadata.generator';

/**
 * `npm run openapi`: regenerates the swagger plugin metadata of every app's DTOs and controllers,
 * then the public API's OpenAPI document, and writes both.
 * `npm run openapi -- --check`: writes nothing; exits 1 and says what differs when either
 * committed file is not what the code generates.
 */
runGenerator('openapi', (check) =>
  writeOrCheck(
    [
      {
        file: PLUGIN_METADATA_FILE,
        generated: generatePluginMetadata,
        describeDrift: (before, after) => describeDrift(PLUGIN_METADATA_FILE, before, after),
      },
      {
        // Built from the metadata file on disk: written first, unless this is a check.
        file: OPENAPI_FILE,
        generated: async () => serializeOpenApiDocument(await buildOpenApiDocument()),
        describeDrift: (before, after) => describeDrift(OPENAPI_FILE, before, after),
      },
    ],
    check,
    'npm run openapi',
  ),
);

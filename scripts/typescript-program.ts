import path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '..');

/**
 * A TypeScript program over `rootNames` with the repository's compiler options, for the generators
 * that read the code with the type checker (the OpenAPI plugin metadata, the answers' schemas, the
 * settings table). Nothing is emitted; without outDir and rootDir, paths stay relative to the sources.
 */
export function repositoryProgram(rootNames: string[]): ts.Program {
  const configPath = path.join(ROOT, 'tsconfig.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error(`cannot read ${configPath}`);
  const { outDir: _outDir, rootDir: _rootDir, incremental: _incremental, ...options } = parsed.options;
  return ts.createProgram({ rootNames, options: { ...options, noEmit: true } });
}

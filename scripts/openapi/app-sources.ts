import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '../..');

/** Request classes live in these files; their properties and class-validator limits become schemas. */
export const DTO_SUFFIXES = ['.dto.ts', '.query.ts'];
export const CONTROLLER_SUFFIX = '.controller.ts';

export const isDtoFile = (file: string) => DTO_SUFFIXES.some((suffix) => file.endsWith(suffix));
export const isControllerFile = (file: string) => file.endsWith(CONTROLLER_SUFFIX);

/** Every controller, DTO and query file of every app, sorted so the output never depends on the disk. */
export function apiSourceFiles(): string[] {
  const apps = join(REPO_ROOT, 'apps');
  return readdirSync(apps, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((app) =>
      readdirSync(join(apps, app.name, 'src'), { recursive: true, encoding: 'utf8' })
        .filter((file) => isDtoFile(file) || isControllerFile(file))
        .map((file) => join(apps, app.name, 'src', file)),
    )
    .sort();
}

/** Everything the files export (loaded through swc like the apps themselves). */
export async function exportsOf(files: string[]): Promise<unknown[]> {
  const modules = await Promise.all(files.map((file) => import(file) as Promise<Record<string, unknown>>));
  return modules.flatMap((module) => Object.values(module));
}

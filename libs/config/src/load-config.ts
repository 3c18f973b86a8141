import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

function flatten(errors: ValidationError[]): string[] {
  return errors.flatMap((error) => [
    ...Object.values(error.constraints ?? {}).map((message) =>
      // class-validator's messages start with the property name already.
      message.startsWith(error.property) ? message : `${error.property}: ${message}`,
    ),
    ...flatten(error.children ?? []),
  ]);
}

/**
 * Reads the environment into a typed, validated object once at boot.
 * Every bad or missing variable is listed; values are never echoed (some are secrets).
 */
export function loadConfig<T extends object>(
  schema: new () => T,
  env: NodeJS.ProcessEnv = process.env,
): Readonly<T> {
  const config = plainToInstance(schema, { ...env }, { enableImplicitConversion: true });
  const errors = validateSync(config, { skipMissingProperties: false, forbidUnknownValues: true });
  if (errors.length > 0) {
    throw new ConfigError(flatten(errors).sort());
  }
  return Object.freeze(config);
}

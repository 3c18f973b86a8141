import { type Type } from '@nestjs/common';
import { getMetadataStorage, IS_OPTIONAL } from 'class-validator';
import { apiSourceFiles, exportsOf, isDtoFile } from './app-sources';

/** Where @nestjs/swagger keeps the plugin metadata of a class (its plugin-constants, not exported). */
const METADATA_FACTORY = '_OPENAPI_METADATA_FACTORY';

interface PropertyMetadata {
  required?: boolean;
  type?: unknown;
  default?: unknown;
}

type Validation = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

/**
 * What a class-validator constraint says about the schema. The plugin reads constraints from the
 * source, and in readonly (swc) mode only literal ones: `@Matches(SNOWFLAKE)` or
 * `@ArrayMaxSize(SCOPES.length)` need the values the running code has.
 */
const SCHEMA_OF_CONSTRAINT: Record<string, (constraint: unknown) => Record<string, unknown>> = {
  isIn: (values) => ({ enum: values }),
  matches: (pattern) => (pattern instanceof RegExp ? { pattern: pattern.source } : { pattern }),
  min: (minimum) => ({ minimum }),
  max: (maximum) => ({ maximum }),
  minLength: (minLength) => ({ minLength }),
  maxLength: (maxLength) => ({ maxLength }),
  arrayMinSize: (minItems) => ({ minItems }),
  arrayMaxSize: (maxItems) => ({ maxItems }),
};

const TYPE_OF_DEFAULT: Record<string, unknown> = { number: Number, boolean: Boolean, string: String };

function completeProperty(metadata: PropertyMetadata, validations: Validation[]): PropertyMetadata {
  const fromConstraints = validations.flatMap((validation) => {
    const toSchema = validation.name && !validation.each ? SCHEMA_OF_CONSTRAINT[validation.name] : undefined;
    return toSchema ? Object.entries(toSchema(validation.constraints[0])) : [];
  });
  const completed: PropertyMetadata = { ...Object.fromEntries(fromConstraints), ...metadata };
  const names = new Set(validations.map((validation) => validation.name));
  // The plugin marks a property required unless it has a `?`; @IsOptional says otherwise.
  if (names.has(IS_OPTIONAL)) completed.required = false;
  if (names.has('isInt')) {
    completed.type = 'integer';
  } else if (typeof metadata.type === 'function' && (metadata.type as () => unknown)() === Object) {
    // `limit = 50` has no annotation, so the plugin says Object; the initializer says what it is.
    completed.type = TYPE_OF_DEFAULT[typeof metadata.default] ?? metadata.type;
  }
  return completed;
}

/** Refines the loaded plugin metadata of every DTO with what only the running code knows. */
export async function completePluginMetadata(): Promise<void> {
  const dtoClasses = (await exportsOf(apiSourceFiles().filter(isDtoFile)))
    .filter((value): value is Type & Record<string, unknown> => typeof value === 'function')
    .filter((dto) => Object.hasOwn(dto, METADATA_FACTORY));
  for (const dto of dtoClasses) {
    const validations = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
    const factory = dto[METADATA_FACTORY] as () => Record<string, PropertyMetadata>;
    dto[METADATA_FACTORY] = () =>
      Object.fromEntries(
        Object.entries(factory()).map(([key, metadata]) => [
          key,
          completeProperty(
            metadata,
            validations.filter((validation) => validation.propertyName === key),
          ),
        ]),
      );
  }
}

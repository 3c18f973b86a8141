import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { ValidationError } from '@lib/problem-details';
import { createValidationPipe } from './validation.pipe';

class Options {
  @IsOptional()
  @IsBoolean()
  dry_run?: boolean;
}

class Body {
  @IsOptional()
  @IsString()
  @MaxLength(5)
  description?: string;

  @IsArray()
  @ArrayMaxSize(2)
  @ArrayUnique()
  @IsIn(['a', 'b', 'c'], { each: true })
  scope!: string[];

  /** Rules written size first: the kind of value is still what is reported for a string. */
  @IsOptional()
  @Max(10)
  @Min(1)
  @IsInt()
  count?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => Options)
  options?: Options;
}

const sut = createValidationPipe();

async function errorsFor(value: unknown): Promise<{ field: string; message: string }[]> {
  try {
    await sut.transform(value, { type: 'body', metatype: Body });
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  return [];
}

describe(createValidationPipe.name, () => {
  it('reports one message per field: the kind of value before its size', async () => {
    await expect(errorsFor({ scope: ['a'], description: 123, count: 'many' })).resolves.toEqual([
      { field: 'description', message: 'description must be a string' },
      { field: 'count', message: 'count must be a whole number' },
    ]);
  });

  it('says a missing field is required, not every rule it would break', async () => {
    await expect(errorsFor({})).resolves.toEqual([{ field: 'scope', message: 'scope is required' }]);
  });

  it('reports the first rule written that a value breaks, in plain words', async () => {
    await expect(errorsFor({ scope: ['a', 'a', 'z'] })).resolves.toEqual([
      { field: 'scope', message: 'scope must have at most 2 items' },
    ]);
    await expect(errorsFor({ scope: ['a', 'a'] })).resolves.toEqual([
      { field: 'scope', message: 'scope must not name an item twice' },
    ]);
    await expect(errorsFor({ scope: ['z'], description: 'too long' })).resolves.toEqual([
      { field: 'description', message: 'description must be at most 5 characters long' },
      { field: 'scope', message: 'each item of scope must be one of a, b, c' },
    ]);
  });

  it('names unknown fields, and nested fields by their path', async () => {
    const errors = await errorsFor({ scope: ['a'], extra: 1, options: { dry_run: 'yes' } });
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: 'extra', message: 'extra is not a field of this request' },
        { field: 'options.dry_run', message: 'dry_run must be true or false' },
      ]),
    );
    expect(errors).toHaveLength(2);
  });

  it('puts the messages in the detail, one per field', async () => {
    await expect(sut.transform({ description: 1 }, { type: 'body', metatype: Body })).rejects.toMatchObject({
      message: 'description must be a string; scope is required',
    });
  });
});

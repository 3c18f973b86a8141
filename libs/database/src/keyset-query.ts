import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';

/**
 * A list query's `limit`: optional, a whole number from 1 to `max`. The default is the property's
 * initializer (`limit = 50`), which the OpenAPI document shows as the default.
 */
export function IsPageLimit(max: number): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    Type(() => Number),
    IsInt(),
    Min(1),
    Max(max),
  );
}

/**
 * A list query's `cursor`: optional, the `next_cursor` of the previous page. Only its form (the
 * base64url `encodeKeysetCursor` writes, at most 200 characters) is checked here; `keysetStart`
 * refuses one that is well formed but not ours.
 */
export function IsKeysetCursor(): PropertyDecorator {
  return applyDecorators(IsOptional(), Matches(/^[A-Za-z0-9_-]{1,200}$/, { message: 'cursor is not valid' }));
}

import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { IsKeysetCursor, IsPageLimit } from './keyset-query';

class ListQuery {
  @IsPageLimit(100)
  limit = 50;

  @IsKeysetCursor()
  cursor?: string;
}

function problems(query: Record<string, string>): Record<string, string[]> {
  const errors = validateSync(plainToInstance(ListQuery, query));
  return Object.fromEntries(errors.map((error) => [error.property, Object.values(error.constraints ?? {})]));
}

describe('list query decorators', () => {
  it('takes a query without limit or cursor, the limit then being its default', () => {
    expect(problems({})).toEqual({});
    expect(plainToInstance(ListQuery, {}).limit).toBe(50);
  });

  it('takes a limit from 1 to the maximum, as the query string gives it', () => {
    expect(problems({ limit: '1' })).toEqual({});
    expect(problems({ limit: '100' })).toEqual({});
    expect(plainToInstance(ListQuery, { limit: '7' }).limit).toBe(7);
  });

  it.each(['0', '101', '2.5', 'ten'])('refuses limit %s', (limit) => {
    expect(problems({ limit })).toHaveProperty('limit');
  });

  it('takes a base64url cursor of up to 200 characters', () => {
    expect(problems({ cursor: 'MjAyNi0wMS0wMVQwMDowMDowMC4wMDAwMDBafDAxOTA' })).toEqual({});
    expect(problems({ cursor: 'a'.repeat(200) })).toEqual({});
  });

  it.each(['', 'a'.repeat(201), 'not/base64+url', "'; DROP TABLE x"])('refuses cursor %j', (cursor) => {
    expect(problems({ cursor })).toEqual({ cursor: ['cursor is not valid'] });
  });
});

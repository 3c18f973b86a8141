import { Column, type ColumnOptions, type ColumnType, CreateDateColumn, UpdateDateColumn } from 'typeorm';

/**
 * A column named as the migrations name every column: its property in snake_case (`guildId` is
 * `guild_id`). Use TypeORM's own `@Column` for one whose name differs.
 */
export function SnakeCaseColumn(
  type: ColumnType,
  options: Omit<ColumnOptions, 'name'> = {},
): PropertyDecorator {
  return (target, property) =>
    Column({ ...options, type, name: snakeCase(String(property)) })(target, property);
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** The creation and last-change times of a row the service updates in place. */
export abstract class TimestampedEntity {
  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}

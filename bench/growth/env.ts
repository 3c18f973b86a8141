/**
 * The growth bench's database, set before test-env's defaults (which name the integration
 * database): GROWTH_DATABASE_URL, or guildkeeper_growth on the local server.
 */
process.env.DATABASE_URL =
  process.env.GROWTH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/guildkeeper_growth';

// Standalone mode (every context in one process, embedded Postgres) is issue 11 and not built yet.
process.stderr.write(
  [
    'Standalone mode is not built yet.',
    'Run the distributed apps instead: see "Running the apps" in README.md',
    '(bash scripts/infra.sh up, npm run migrate, then each app under apps/).',
    '',
  ].join('\n'),
);
process.exitCode = 1;

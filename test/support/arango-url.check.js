/**
 * First step of `npm run test:arango`: the ArangoDB suites need a server, and without ARANGO_URL jest
 * would only report them as skipped and succeed. This makes the command fail and say what to do.
 */
if (!process.env.ARANGO_URL) {
  process.stderr.write(
    [
      'npm run test:arango needs an ArangoDB server: set ARANGO_URL (and ARANGO_PASSWORD; ARANGO_USER when not root).',
      'With the docker-compose ArangoDB (docs/graph-store.md):',
      '  docker compose up -d arangodb',
      '  ARANGO_URL=http://127.0.0.1:8529 ARANGO_PASSWORD=<ARANGO_PASSWORD of .env> npm run test:arango',
      '',
    ].join('\n'),
  );
  process.exit(1);
}
process.stdout.write(
  `ArangoDB suites against ${process.env.ARANGO_URL.replace(/\/\/[^/@]*@/, '//')} (user ${process.env.ARANGO_USER || 'root'})\n`,
);

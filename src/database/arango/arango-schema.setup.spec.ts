import { Database } from 'arangojs';
import { runArangoSchemaSetup } from './arango-schema.setup';

describe(runArangoSchemaSetup.name, () => {
  const db = new Database({ url: 'http://127.0.0.1:1', databaseName: 'nodius' });

  it("answers the setup's result", async () => {
    await expect(runArangoSchemaSetup(db, 'thread schema', async () => ({ fulltext: true }))).resolves.toEqual({
      fulltext: true,
    });
  });

  it('says which setup failed in which database, and keeps the cause', async () => {
    const cause = new Error('connect ECONNREFUSED');
    const failure = await runArangoSchemaSetup(db, 'memory schema', async () => Promise.reject(cause)).catch(
      (error: unknown) => error as Error,
    );
    expect(failure.message).toBe('ArangoDB memory schema setup failed in database "nodius": connect ECONNREFUSED');
    expect(failure.cause).toBe(cause);
  });
});

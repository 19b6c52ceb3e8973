import { Database } from 'arangojs';

/**
 * Runs a store's schema setup (its collections and indexes) at start: a failure says which setup and
 * which database it was, with the ArangoDB error kept as its cause. `what` names the setup ("thread
 * schema", "policy collection").
 */
export async function runArangoSchemaSetup<T>(db: Database, what: string, setup: () => Promise<T>): Promise<T> {
  try {
    return await setup();
  } catch (error) {
    throw new Error(
      `ArangoDB ${what} setup failed in database "${db.name}": ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

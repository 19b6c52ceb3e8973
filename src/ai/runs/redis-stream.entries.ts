import { LoggedRunEvent, RunEventName } from './run-event.log';

/** A logged event as read back from its stream. */
export type StreamEntry = LoggedRunEvent;

/** Stream entry ids are `<seq>-0`: the request's own sequence, so reads resume after a seq without a lookup. */
export function entryIdOf(seq: number): string {
  return `${seq}-0`;
}

/** Entries as XRANGE / XREAD return them: field `e` the event name, `p` its payload as JSON (without `_id` and `seq`). */
export function parseStreamEntries(entries: Array<[string, string[]]>): StreamEntry[] {
  return entries.map(([id, fields]) => {
    const field = (name: string) => fields[fields.indexOf(name) + 1];
    return {
      seq: Number(id.slice(0, id.indexOf('-'))),
      event: field('e') as RunEventName,
      payload: JSON.parse(field('p')) as Record<string, unknown>,
    };
  });
}

import jwt from 'jsonwebtoken';
import type { ReceivedEvent } from './ai-socket.client';

/** The `seq` of a received event. */
export const seqOf = (event: ReceivedEvent): number | undefined => (event.payload as { seq?: number }).seq;

/** The text of the `ai:token` events among `events`, concatenated. */
export const textOf = (events: ReceivedEvent[]): string =>
  events
    .filter((event) => event.event === 'ai:token')
    .map((event) => (event.payload as { token: string }).token)
    .join('');

/** A JWT of an editor of workspace `default`, signed with `secret`: one user per test keeps budgets and threads apart. */
export const editorToken = (secret: string, user: string): string =>
  jwt.sign({ sub: user, workspace: 'default', role: 'editor' }, secret, { expiresIn: 600 });

/** A long answer for streams that must still run while a test acts: `pieces` words of 4 characters. */
export const longAnswer = (pieces: number, letter = 'w'): string =>
  Array.from({ length: pieces }, (_, index) => `${letter}${String(index).padStart(2, '0')} `).join('');

import type { BlockSegment, MessageSegment } from './protocol';

/**
 * What a composer's text attaches (docs/protocol.md §9.6), written where the words go:
 *   `@key`           the node `key` (a pointer)          `@sheet:1`        the sheet `1` (a pointer)
 *   `/use type`      a node type to use                   `/create type`    a node type to create
 *   `/modify key`    a node whose configuration to change
 * Keys in the text are letters, digits, `_`, `-` and `.`; other blocks (a canvas selection) are attached apart.
 */
const TOKEN = /(^|\s)(?:@sheet:([\w.-]+)|@([\w.-]+)|\/(use|create|modify)\s+([\w.-]+))/g;

/** The blocks written in `text`, in order, each with where it stands. */
function blocksIn(text: string): Array<{ start: number; end: number; block: BlockSegment }> {
  const found: Array<{ start: number; end: number; block: BlockSegment }> = [];
  for (const match of text.matchAll(TOKEN)) {
    const start = (match.index ?? 0) + match[1].length;
    const end = (match.index ?? 0) + match[0].length;
    const [, , sheet, nodeKey, command, key] = match;
    let block: BlockSegment;
    if (sheet !== undefined) block = pointerToSheet(sheet);
    else if (nodeKey !== undefined) block = pointerToNodes([nodeKey]);
    else if (command === 'modify')
      block = { type: 'block', block: 'modify_config', config: { nodeKey: key }, preview: key };
    else block = { type: 'block', block: command as 'use' | 'create', config: { nodeType: key }, preview: key };
    found.push({ start, end, block });
  }
  return found;
}

/** A pointer to nodes (one, or a canvas selection). */
export function pointerToNodes(nodeKeys: readonly string[]): BlockSegment {
  const preview =
    nodeKeys.length <= 3 ? nodeKeys.join(', ') : `${nodeKeys.slice(0, 3).join(', ')} +${nodeKeys.length - 3}`;
  return { type: 'block', block: 'pointer', config: { nodeKeys: [...nodeKeys] }, preview };
}

export function pointerToSheet(sheet: string, name?: string): BlockSegment {
  return { type: 'block', block: 'pointer', config: { sheet }, preview: name ? `sheet ${name}` : `sheet ${sheet}` };
}

/** The blocks a composer shows as chips while the user types: those written in the text, then the attached ones. */
export function composerBlocks(text: string, attached: readonly BlockSegment[] = []): BlockSegment[] {
  return [...blocksIn(text).map((found) => found.block), ...attached];
}

/**
 * The segments of a message: its text cut around the blocks written in it, then the attached blocks; null when it has
 * no block (send it as a plain `message`).
 */
export function composeSegments(text: string, attached: readonly BlockSegment[] = []): MessageSegment[] | null {
  const found = blocksIn(text);
  if (found.length === 0 && attached.length === 0) return null;
  const segments: MessageSegment[] = [];
  let from = 0;
  const pushText = (value: string) => {
    if (value.trim()) segments.push({ type: 'text', text: value });
  };
  for (const { start, end, block } of found) {
    pushText(text.slice(from, start));
    segments.push(block);
    from = end;
  }
  pushText(text.slice(from));
  segments.push(...attached);
  return segments;
}

/** A chip's label: what kind of block, and its preview. */
export function blockLabel(block: BlockSegment): string {
  const kind = block.block === 'modify_config' ? 'modify' : block.block;
  return `${kind} · ${block.preview}`;
}

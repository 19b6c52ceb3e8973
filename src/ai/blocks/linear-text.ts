import type { BlockSegment, MessageSegment } from '../../conversation/rich-message';

/**
 * The segments of a chat message: `message`, when given, is its first text segment (the text a block-less client
 * sends, or the words a composer's chips follow).
 */
export function segmentsOf(message: string | undefined, segments: readonly MessageSegment[]): MessageSegment[] {
  return message === undefined ? [...segments] : [{ type: 'text', text: message }, ...segments];
}

/**
 * The text the model reads for a rich message: its segments in order, each block replaced by a marker numbering it,
 * `[block 2 use: Filter nodes]`, the number its level-4 data carries too. Text segments are joined as written; a block
 * marker is kept apart from the words around it by a space. The preview is user text: the marker keeps it on one line
 * and without brackets, so it cannot close the marker early.
 */
export function linearTextOf(segments: readonly MessageSegment[]): string {
  let text = '';
  let afterBlock = false;
  let blockNumber = 0;
  for (const segment of segments) {
    const isBlock = segment.type === 'block';
    const part = isBlock ? blockMarker(segment, ++blockNumber) : segment.text;
    const touching = text !== '' && part !== '' && !/\s$/.test(text) && !/^\s/.test(part);
    text += touching && (isBlock || afterBlock) ? ` ${part}` : part;
    afterBlock = isBlock;
  }
  return text;
}

/** The blocks of a message, in order: block n is `blocksOf(segments)[n - 1]`. */
export function blocksOf(segments: readonly MessageSegment[] | undefined): BlockSegment[] {
  return (segments ?? []).filter((segment): segment is BlockSegment => segment.type === 'block');
}

export function blockMarker(segment: BlockSegment, blockNumber: number): string {
  const preview = segment.preview.replace(/\s+/g, ' ').replace(/\[/g, '(').replace(/\]/g, ')').trim();
  return `[block ${blockNumber} ${segment.block}: ${preview}]`;
}

import type { ToolResultTexts } from '../tool-result.texts';

/**
 * A problem in a tool call that the model can correct (unknown tool or node, bad arguments, a sheet
 * that does not exist): the executor turns it into an `{ "error": ..., ... }` result, never an
 * exception. `extra` adds what helps the model retry (the valid sheets, a hint...).
 */
export class ToolInputError extends Error {
  constructor(
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ToolInputError';
  }

  static unknownNode(nodeKey: string, texts: ToolResultTexts): ToolInputError {
    return new ToolInputError(texts.unknownNode(nodeKey), { hint: texts.unknownNodeHint });
  }
}

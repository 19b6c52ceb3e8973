import { InMemoryGraphDataSource } from '../../../../test/support/in-memory-graph-data-source';
import { defineReadTool } from './read-tool';
import { DEFAULT_READ_TOOL_LIMITS, ReadToolContext } from './read-tool.context';
import { ToolInputError } from './tool-input.error';

interface EchoArguments {
  text: string;
  times?: number;
}

const echo = defineReadTool<EchoArguments>()({
  name: 'echo',
  description: 'Repeats a text.',
  parameters: {
    type: 'object',
    additionalProperties: false,
    required: ['text'],
    properties: { text: { type: 'string', minLength: 1 }, times: { type: 'integer', minimum: 1, maximum: 3 } },
  },
  async execute({ text, times = 1 }) {
    return { echoed: text.repeat(times) };
  },
});

describe(defineReadTool.name, () => {
  const context = new ReadToolContext(new InMemoryGraphDataSource('default', []), 'g', DEFAULT_READ_TOOL_LIMITS);

  it('offers the strict schema to the model and declares its argument names', () => {
    expect(echo.definition).toEqual({
      type: 'function',
      function: {
        name: 'echo',
        description: 'Repeats a text.',
        parameters: expect.objectContaining({ additionalProperties: false, required: ['text'] }),
      },
    });
    expect([...echo.argumentNames]).toEqual(['text', 'times']);
  });

  it('runs a valid call with its typed arguments', async () => {
    await expect(echo.run({ text: 'ab', times: 2 }, context)).resolves.toEqual({ echoed: 'abab' });
    await expect(echo.run({ text: 'ab' }, context)).resolves.toEqual({ echoed: 'ab' });
  });

  it('refuses invalid arguments with every problem, for the model to correct, and never executes them', async () => {
    const refused = echo.run({ times: 9 }, context);
    await expect(refused).rejects.toBeInstanceOf(ToolInputError);
    await expect(refused).rejects.toMatchObject({
      message: 'Invalid arguments for echo: text is required; times must be <= 3',
      extra: {
        problems: [
          { path: 'text', message: 'is required' },
          { path: 'times', message: 'must be <= 3' },
        ],
      },
    });
  });
});

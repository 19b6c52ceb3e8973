import { deriveThreadTitle, THREAD_TITLE_MAX_CHARS } from './thread-title';

describe(deriveThreadTitle.name, () => {
  it('keeps a short message as is, whitespace collapsed and trimmed', () => {
    expect(deriveThreadTitle('  What does\n\tfetch-api   do?  ')).toBe('What does fetch-api do?');
  });

  it('cuts a long message at a word boundary with an ellipsis, within the limit', () => {
    const title = deriveThreadTitle(
      'Explain how the filter-active node processes the data returned by fetch-api and where errors go',
    );
    expect(Array.from(title).length).toBeLessThanOrEqual(THREAD_TITLE_MAX_CHARS);
    expect(title.endsWith('…')).toBe(true);
    expect(title).toBe('Explain how the filter-active node processes the data…');
  });

  it('cuts a long word without spaces mid-word', () => {
    const title = deriveThreadTitle('x'.repeat(200));
    expect(title).toBe(`${'x'.repeat(THREAD_TITLE_MAX_CHARS - 1)}…`);
  });

  it('never splits a surrogate pair', () => {
    const title = deriveThreadTitle('😀'.repeat(100));
    expect(Array.from(title)).toHaveLength(THREAD_TITLE_MAX_CHARS);
    expect(title).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('gives a placeholder for an empty message', () => {
    expect(deriveThreadTitle(' \n ')).toBe('New conversation');
  });
});

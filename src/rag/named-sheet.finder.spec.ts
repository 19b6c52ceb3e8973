import { NamedSheetFinder } from './named-sheet.finder';

describe(NamedSheetFinder.name, () => {
  const sheets = Object.freeze({
    '0': 'Daily Email Notification',
    '1': 'Send multi-channel medication reminders to patients',
    '2': 'Daily Slack digest',
    '3': 'main',
  });
  const finder = new NamedSheetFinder();

  it('finds the sheet a bracketed question names and takes the name out of the question', () => {
    expect(finder.find(sheets, '[Daily Email Notification] What is the fallback when Telegram fails?')).toEqual({
      sheet: '0',
      name: 'Daily Email Notification',
      residualQuery: 'What is the fallback when Telegram fails?',
    });
  });

  it('finds a name written inside the question, in any case, or most of its words in another order', () => {
    expect(finder.find(sheets, 'in the daily email notification workflow, which node reads the inbox?')).toMatchObject({
      sheet: '0',
      residualQuery: 'in the workflow, which node reads the inbox?',
    });
    const reordered = finder.find(
      sheets,
      'which node of the patients medication reminders sends to multiple channels?',
    );
    expect(reordered).toMatchObject({
      sheet: '1',
      residualQuery: 'which node of the patients medication reminders sends to multiple channels?',
    });
  });

  it('names no sheet for one shared word, a one-word name, a tie, or a graph of one sheet', () => {
    expect(finder.find(sheets, 'which daily trigger runs first?')).toBeNull();
    expect(finder.find(sheets, 'where is the main agent?')).toBeNull();
    expect(finder.find({ a: 'Sync contacts', b: 'Sync contacts' }, 'Sync contacts: what runs first?')).toBeNull();
    expect(finder.find({ '0': 'Daily Email Notification' }, '[Daily Email Notification] fallback')).toBeNull();
  });

  it('prefers the best covered name', () => {
    expect(finder.find(sheets, 'daily slack digest email')?.sheet).toBe('2');
  });
});

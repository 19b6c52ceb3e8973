import { CONCEPTS } from './domain-lexicon.data';
import { DomainLexicon, SYNONYM_WEIGHT, TRANSLATION_WEIGHT } from './domain-lexicon';
import { SearchTextTokenizer } from './search-text.tokenizer';

describe(DomainLexicon.name, () => {
  const tokenizer = new SearchTextTokenizer();
  const lexicon = new DomainLexicon(tokenizer);
  const expand = (text: string) => lexicon.expandQuery(tokenizer.tokenize(text), text);
  const term = (word: string) => tokenizer.tokenize(word)[0];

  it('reads a question as French only when it holds a French function word', () => {
    expect(lexicon.isFrench('Où est envoyé le courriel ?')).toBe(true);
    expect(lexicon.isFrench('Quel nœud crée le dossier ?')).toBe(true);
    expect(lexicon.isFrench('which node sends the email on a schedule?')).toBe(false);
  });

  it('leads the words of a French question to their English equivalents, conjugated verbs and phrases included', () => {
    const weights = expand('Où envoie-t-on le courriel de rappel après la mise à jour ?');
    for (const english of ['send', 'email', 'mail', 'reminder', 'after', 'next', 'update'])
      expect(weights.get(term(english))).toBe(TRANSLATION_WEIGHT);
    // Regular forms of an infinitive of the lexicon (planifier → planifié, planifiée...).
    expect(expand('Quelle tâche est planifiée ?').get(term('schedule'))).toBe(TRANSLATION_WEIGHT);
    // The question's own terms keep weight 1.
    expect(weights.get(term('courriel'))).toBe(1);
  });

  it('does not translate an English question, even one with a word French shares', () => {
    const weights = expand('add a note to the lot of records');
    expect(weights.get(term('score'))).toBeUndefined();
    expect(weights.get(term('batch'))).toBeUndefined();
  });

  it('adds the synonyms of every term at a lower weight', () => {
    const weights = expand('delete the file');
    expect(weights.get(term('delete'))).toBe(1);
    expect(weights.get(term('remove'))).toBe(SYNONYM_WEIGHT);
  });

  it('gives a store that analyses text itself the English words of a French question, and nothing for an English one', () => {
    expect(lexicon.translationText('Où supprime-t-on le fichier ?').split(' ')).toEqual(
      expect.arrayContaining(['delete', 'remove', 'file']),
    );
    expect(lexicon.translationText('where is the file deleted?')).toBe('');
  });

  it('has English and French words on every line of its data', () => {
    for (const [english, french] of CONCEPTS) {
      expect(english.trim()).not.toBe('');
      expect(french.trim()).not.toBe('');
    }
  });
});

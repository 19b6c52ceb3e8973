/**
 * A deliberately light suffix stripper for English and French identifiers and prose, applied to
 * lowercase, accent-folded tokens of letters only (tokens with digits are left alone). Queries and
 * documents go through the same rules, so both sides meet on the same stem even when it is not a
 * real word. Rules, in order, for tokens longer than 3 letters:
 *   1. plural:  -ies → -y (entries → entry); -aux → -al (journaux → journal);
 *               a final -s is dropped unless the word ends in -ss, -us or -is (nodes → node, status stays).
 *   2. -ing / -ed are dropped when at least 4 letters remain (fetching → fetch, filtered → filter),
 *               then a doubled final consonant other than l, s, z is undoubled (mapped → map).
 *   3. a final -e is dropped when at least 3 letters remain (update, updates, updated → updat;
 *               donnée, données → donne).
 */
export class LightStemmer {
  stem(token: string): string {
    if (token.length <= 3 || !/^[a-z]+$/.test(token)) return token;
    let word = stripPlural(token);
    word = stripVerbEnding(word);
    if (word.endsWith('e') && word.length - 1 >= 3) word = word.slice(0, -1);
    return word;
  }
}

function stripPlural(word: string): string {
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('aux') && word.length > 4) return `${word.slice(0, -3)}al`;
  if (word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

function stripVerbEnding(word: string): string {
  for (const suffix of ['ing', 'ed']) {
    if (!word.endsWith(suffix) || word.length - suffix.length < 4) continue;
    const stem = word.slice(0, -suffix.length);
    const last = stem[stem.length - 1];
    return last === stem[stem.length - 2] && /[^aeiouylsz]/.test(last) ? stem.slice(0, -1) : stem;
  }
  return word;
}

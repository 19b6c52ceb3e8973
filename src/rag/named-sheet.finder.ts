import { SearchTextTokenizer } from '../graph/search/search-text.tokenizer';

/** A sheet the question names, and the question without that name. */
export interface NamedSheet {
  sheet: string;
  name: string;
  /** The question with the sheet's name taken out when it is there word for word, else the question. */
  residualQuery: string;
}

interface SheetNames {
  /** Distinct search terms of each sheet's name. */
  termsBySheet: Map<string, Set<string>>;
  /** Search term → the sheets whose name has it. */
  sheetsByTerm: Map<string, string[]>;
}

/** A name is taken as named when the question holds at least this share of its terms... */
const MIN_COVERAGE = 0.75;
/** ...and at least this many of them (one common word is not a name). */
const MIN_MATCHED_TERMS = 2;
const ENCLOSING = /^[\s[\](){}"'«»“”‘’:,;-]+|[\s[\](){}"'«»“”‘’:,;-]+$/g;

/**
 * Finds the sheet a question is about in a graph of many sheets, e.g. a workspace that unions many
 * workflows, each on a sheet named after it: "[Daily Email Notification] what runs at night?" or
 * "in the Daily Email Notification workflow, ...". A sheet is named when the question holds most of
 * the search terms of its name; the best covered name wins, and a tie names none. The terms of a
 * graph's sheet names are indexed once per sheetsList object (the stores hand out one frozen graph
 * document per revision).
 */
export class NamedSheetFinder {
  private readonly indexes = new WeakMap<object, SheetNames>();

  constructor(private readonly tokenizer: SearchTextTokenizer = new SearchTextTokenizer()) {}

  find(sheetsList: Readonly<Record<string, string>>, query: string): NamedSheet | null {
    const names = this.namesOf(sheetsList);
    if (names.termsBySheet.size < 2) return null;
    const matched = new Map<string, number>();
    for (const term of new Set(this.tokenizer.tokenize(query))) {
      for (const sheet of names.sheetsByTerm.get(term) ?? []) matched.set(sheet, (matched.get(sheet) ?? 0) + 1);
    }
    let best: { sheet: string; coverage: number; count: number } | null = null;
    let tied = false;
    for (const [sheet, count] of matched) {
      const coverage = count / (names.termsBySheet.get(sheet) as Set<string>).size;
      if (count < MIN_MATCHED_TERMS || coverage < MIN_COVERAGE) continue;
      if (!best || coverage > best.coverage || (coverage === best.coverage && count > best.count)) {
        best = { sheet, coverage, count };
        tied = false;
      } else if (coverage === best.coverage && count === best.count) {
        tied = true;
      }
    }
    if (!best || tied) return null;
    const name = sheetsList[best.sheet];
    return { sheet: best.sheet, name, residualQuery: withoutName(query, name) };
  }

  private namesOf(sheetsList: Readonly<Record<string, string>>): SheetNames {
    const cached = this.indexes.get(sheetsList);
    if (cached) return cached;
    const termsBySheet = new Map<string, Set<string>>();
    const sheetsByTerm = new Map<string, string[]>();
    for (const [sheet, name] of Object.entries(sheetsList)) {
      const terms = new Set(this.tokenizer.tokenize(name));
      if (terms.size === 0) continue;
      termsBySheet.set(sheet, terms);
      for (const term of terms) {
        const sheets = sheetsByTerm.get(term);
        if (sheets) sheets.push(sheet);
        else sheetsByTerm.set(term, [sheet]);
      }
    }
    const index = { termsBySheet, sheetsByTerm };
    this.indexes.set(sheetsList, index);
    return index;
  }
}

/** The query without the first occurrence of `name` (case-insensitive) and the brackets or quotes around it. */
function withoutName(query: string, name: string): string {
  const at = query.toLowerCase().indexOf(name.toLowerCase());
  if (at < 0) return query;
  const before = query.slice(0, at).replace(ENCLOSING, '');
  const after = query.slice(at + name.length).replace(ENCLOSING, '');
  return [before, after].filter(Boolean).join(' ');
}

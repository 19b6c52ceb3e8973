#!/usr/bin/env node
// Comment share and cross-references of TypeScript sources.
//
//   node scripts/comment-share.mjs [--no-specs] [--files] [--by-folder] PATH...   (default: src)
//
// Comment characters are counted from TypeScript's own tokens (comments are trivia between tokens), so a `//` inside a
// string, a template or a regular expression is not a comment. A doc reference is `docs/NAME.md` (or a bare `foo.md`)
// named in a comment; a spec reference is a `§`, a "seed NNN" or a PROTOCOL.md / DESIGN.md named in a comment.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

const args = process.argv.slice(2);
const flags = new Set(args.filter((arg) => arg.startsWith('--')));
const roots = args.filter((arg) => !arg.startsWith('--'));
if (roots.length === 0) roots.push('src');

function* sourceFiles(entry) {
  const stat = statSync(entry);
  if (stat.isFile()) {
    if (/\.tsx?$/.test(entry)) yield entry;
    return;
  }
  for (const name of readdirSync(entry).sort()) {
    if (name === 'node_modules' || name === 'dist') continue;
    yield* sourceFiles(path.join(entry, name));
  }
}

function comments(file, text) {
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const seen = new Map();
  const visit = (node) => {
    for (const range of [
      ...(ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []),
      ...(ts.getTrailingCommentRanges(text, node.getEnd()) ?? []),
    ])
      seen.set(range.pos, text.slice(range.pos, range.end));
    node.getChildren(source).forEach(visit);
  };
  visit(source);
  return [...seen.values()];
}

const DOC_REFERENCE = /\bdocs\/[\w./-]+\.md\b|(?<![\w/])(?!PROTOCOL\.md|DESIGN\.md|README\.md)[a-z][\w-]*\.md\b/g;
const SPEC_REFERENCE = /§|\bseeds? ?0\d\d\b|PROTOCOL\.md|DESIGN\.md/gi;

const rows = [];
for (const root of roots)
  for (const file of sourceFiles(root)) {
    if (flags.has('--no-specs') && /\.(spec|e2e-spec|fault-spec)\.tsx?$/.test(file)) continue;
    const text = readFileSync(file, 'utf8');
    const found = comments(file, text);
    const commentChars = found.reduce((sum, comment) => sum + comment.length, 0);
    const joined = found.join('\n');
    rows.push({
      file,
      chars: text.length,
      commentChars,
      docReferences: (joined.match(DOC_REFERENCE) ?? []).length,
      specReferences: (joined.match(SPEC_REFERENCE) ?? []).length,
    });
  }

function total(group) {
  const sum = (key) => group.reduce((acc, row) => acc + row[key], 0);
  return {
    files: group.length,
    chars: sum('chars'),
    commentChars: sum('commentChars'),
    share: sum('chars') ? sum('commentChars') / sum('chars') : 0,
    docReferences: sum('docReferences'),
    specReferences: sum('specReferences'),
  };
}

const format = (label, t) =>
  `${label.padEnd(48)} ${String(t.files ?? 1).padStart(5)} ${String(t.chars).padStart(9)} ${String(t.commentChars).padStart(9)} ${(100 * t.share).toFixed(1).padStart(6)} % ${String(t.docReferences).padStart(5)} ${String(t.specReferences).padStart(5)}`;
console.log(
  `${'path'.padEnd(48)} ${'files'.padStart(5)} ${'chars'.padStart(9)} ${'comments'.padStart(9)} ${'share'.padStart(8)} ${'docs'.padStart(5)} ${'§/seed'.padStart(5)}`,
);
if (flags.has('--by-folder')) {
  const folders = new Map();
  for (const row of rows) {
    const folder = path.dirname(row.file);
    folders.set(folder, [...(folders.get(folder) ?? []), row]);
  }
  for (const [folder, group] of [...folders].sort()) console.log(format(folder, total(group)));
}
if (flags.has('--files'))
  for (const row of rows)
    console.log(format(row.file, { ...row, share: row.chars ? row.commentChars / row.chars : 0 }));
console.log(format(roots.length > 3 ? `total (${roots.length} paths)` : `total (${roots.join(' ')})`, total(rows)));

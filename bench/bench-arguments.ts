/** The value after `--name` on the command line, if any. */
export function argumentValue(name: string, argv: readonly string[] = process.argv): string | undefined {
  const index = argv.indexOf(`--${name}`);
  return index >= 0 ? argv[index + 1] : undefined;
}

export function numberArgument(name: string, argv: readonly string[] = process.argv): number | undefined {
  const value = argumentValue(name, argv);
  return value === undefined ? undefined : Number(value);
}

/** `--name 1,5,20` → [1, 5, 20]. */
export function numberListArgument(name: string, argv: readonly string[] = process.argv): number[] | undefined {
  return argumentValue(name, argv)?.split(',').map(Number);
}

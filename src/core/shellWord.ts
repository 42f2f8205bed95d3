// A word of a command line as a person pastes it into a shell: the CLI's next-step hints and the
// report's next commands quote paths by this one rule.

/** A shell word: quoted only when it needs to be. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

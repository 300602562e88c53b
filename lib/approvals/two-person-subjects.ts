/** What a release approves, as one string: the pins shown, in a stable order (a second approval must have seen the same). */
export const releaseSubject = (shown: Record<string, string>, definitions: Record<string, string> = {}): string =>
  JSON.stringify([Object.entries(shown).sort(), Object.entries(definitions).sort()])

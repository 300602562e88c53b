import { createRequire } from 'node:module'

/** The tokenizer's encoding (GPT-4o family); named in every report so figures are comparable. */
export const ENCODING = 'o200k_base'

let count: ((text: string) => number) | undefined

/**
 * Tokens of a text in ENCODING. The tokenizer loads on first use: its rank tables take about
 * half a second to load, which every CLI command would otherwise pay at start.
 */
export function countTokens(text: string): number {
  count ??= (createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as { countTokens: (t: string) => number }).countTokens
  return count(text)
}

/** The bounds of a name and of a tool id, on every surface (lib/schemas/names.ts holds the rules that use them). */
export const MAX_NAME = 64
export const MAX_TOOL_ID = 256

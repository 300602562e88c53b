/**
 * A tool id that may wrap after its ":" on a narrow screen, never inside a name. Two inline
 * blocks rather than <wbr>: a <wbr> breaks even under white-space: nowrap, which wide layouts use.
 */
export function ToolId({ id }: { id: string }) {
  const at = id.indexOf(':')
  return at < 0 ? <>{id}</> : <><span className="inline-block">{id.slice(0, at + 1)}</span><span className="inline-block">{id.slice(at + 1)}</span></>
}

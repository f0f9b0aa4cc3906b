/**
 * Whether a resource URI is one a resource template (RFC 6570) would make:
 * each `{…}` expression read as "any text", the literal parts in order, in
 * linear time. It may say yes where a strict reading would not (it is used
 * to withhold what the person has not approved: erring that way is the safe
 * one), and never runs a pattern a server wrote (the SDK's `UriTemplate`
 * compiles templates into regular expressions, which a hostile template can
 * make backtrack for a long time). Pure.
 */

/** Longest template or URI read; a longer one is treated as matching nothing it could not prove. */
const MAX_LENGTH = 8 * 1024;

/** True when `uri` fits `template` with every expression standing for any text. */
export function templateCovers(template: string, uri: string): boolean {
  if (template.length > MAX_LENGTH || uri.length > MAX_LENGTH) return false;
  const literals = template.split(/\{[^{}]*\}/);
  if (literals.length === 1) return template === uri;
  const first = literals[0]!;
  const last = literals[literals.length - 1]!;
  if (!uri.startsWith(first) || uri.length < first.length + last.length || !uri.endsWith(last)) return false;
  // The middle literals, each found after the one before (leftmost is enough for "any text" between them).
  let at = first.length;
  const end = uri.length - last.length;
  for (const literal of literals.slice(1, -1)) {
    const found = uri.indexOf(literal, at);
    if (found < 0 || found + literal.length > end) return false;
    at = found + literal.length;
  }
  return true;
}

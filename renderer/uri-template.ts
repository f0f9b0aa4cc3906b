/**
 * A resource template's variables and the URI they make (RFC 6570), with the
 * MCP SDK's own UriTemplate — the same code servers built with the SDK use to
 * match the URI back, so what the form builds is what they expect. Pure: no
 * DOM, no Node; the template is the server's text, its variable names data.
 */
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';

/** A template's variables, in order; those in `{?…}`/`{&…}` query expressions may be left empty. */
export function templateVariables(template: string): { names: string[]; optional: Set<string>; error?: string } {
  try {
    const names = [...new Set(new UriTemplate(template).variableNames)];
    const optional = new Set<string>();
    for (const match of template.matchAll(/\{[?&]([^}]*)\}/g)) for (const name of match[1]!.split(',')) optional.add(name.replace(/\*$|:\d+$/, '').trim());
    return { names, optional };
  } catch (error) {
    return { names: [], optional: new Set(), error: `Airlock cannot read this template: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** The URI for these values; empty values are left out. */
export function expandTemplate(template: string, values: ReadonlyMap<string, string>): { uri?: string; error?: string } {
  // Variable names are the server's: a null-prototype object keeps `__proto__` and friends as plain entries.
  const variables = Object.create(null) as Record<string, string>;
  for (const [name, value] of values) if (value !== '') variables[name] = value;
  try {
    return { uri: new UriTemplate(template).expand(variables) };
  } catch (error) {
    return { error: `Airlock cannot fill in this template: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * A remote entry of another app's config (`url`, `type: http|sse`,
 * `headers`): an offer to add it by URL, read and checked like
 * `airlock add --url` when it is disclosed. A header that reads one of VS
 * Code's inputs (`Authorization: Bearer ${input:token}`) becomes a secret the
 * person enters, sent in that header; one that reads the app's environment
 * (`${env:…}`) cannot be carried over, and the entry says how to add it instead.
 */
import type { ImportOrigin } from '../../../shared/domain';
import { suggestServerName, type SecretRequest } from './candidate';
import { isPlainObject } from './config-shape';
import type { ImportEntry } from './import-offers';
import { inputSecret, inputSecretName, type VsCodeInput } from './import-variables';

const VARIABLE = /\$\{([^}]*)\}/g;

/** Reads a remote entry; `inputs` are the file's VS Code inputs (empty for other apps). */
export function remoteEntry(entryName: string, value: Record<string, unknown>, origin: ImportOrigin, inputs: ReadonlyMap<string, VsCodeInput>): ImportEntry {
  const invalid = (reason: string): ImportEntry => ({ entry: entryName, origin, status: 'invalid', reason });
  if (typeof value.url !== 'string' || !value.url.trim()) return invalid('has no “url” (a string)');
  const type = value.type;
  if (type !== undefined && type !== 'http' && type !== 'sse' && type !== 'streamable-http') return invalid(`unknown server type “${String(type)}”`);
  if (value.headers !== undefined && !(isPlainObject(value.headers) && Object.values(value.headers).every((v) => typeof v === 'string'))) {
    return invalid('“headers” must be an object of string values');
  }
  const suggestedName = suggestServerName(entryName);
  const given = Object.entries((value.headers as Record<string, string> | undefined) ?? {}).map(([name, headerValue]) => ({ name, value: headerValue }));
  const secrets: SecretRequest[] = [];
  const headers: Array<{ name: string; value: string }> = [];
  for (const header of given) {
    let carried: string | undefined;
    const text = header.value.replace(VARIABLE, (whole, variable: string) => {
      const input = variable.startsWith('input:') ? inputs.get(variable.slice('input:'.length)) : undefined;
      if (!input) {
        carried ??= whole;
        return whole;
      }
      // SECURITY (SECURITY.md rule 10): what VS Code asked for becomes a secret, sent only in this header.
      const secret = inputSecretName(input.id);
      if (!secrets.some((known) => known.name === secret)) secrets.push(inputSecret(secret, input));
      return `\${secret.${secret}}`;
    });
    if (carried !== undefined) {
      return {
        entry: entryName,
        origin,
        status: 'unsupported',
        reason: `its header ${header.name} reads ${carried} from the app, which Airlock cannot carry over: add it with \`airlock add ${suggestedName} --url ${value.url} --header "${header.name}: …"\``,
      };
    }
    headers.push({ name: header.name, value: text });
  }
  const warnings: string[] = [];
  for (const key of Object.keys(value)) {
    if (!['type', 'url', 'headers', 'disabled'].includes(key)) warnings.push(`the setting “${key}” was not imported`);
  }
  if (value.disabled === true) warnings.push(`it was disabled in ${origin.app === 'file' ? 'that file' : 'that app'}`);
  const transport = type === 'sse' ? 'sse' : type === 'streamable-http' ? 'streamable-http' : 'auto';
  return {
    entry: entryName,
    origin,
    status: 'importable',
    suggestedName,
    enabled: false,
    secretValues: {},
    offer: { kind: 'remote', remote: { url: value.url, headers, transport, name: suggestedName }, warnings, ...(secrets.length ? { secrets } : {}) },
  };
}

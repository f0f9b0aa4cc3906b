/**
 * Reading an elicitation before a person sees it: which form fields look like
 * they ask for a secret, whether a URL may be offered at all, and whether the
 * person's answer fits the form the server sent. Pure functions; the SDK has
 * already checked that a form uses MCP's restricted schema (flat object,
 * primitive fields, SEP-1330 enums).
 *
 * SECURITY: SECURITY.md rules 7 and 9 — a URL is offered only when it is
 * https to a public name, with Punycode flagged; nothing here ever fills in
 * an answer (defaults are shown to the person, never submitted for them).
 */
import { isIP } from 'node:net';
import { domainToUnicode } from 'node:url';
import { isPublicAddress } from '../net/address-ranges';

/** A form as MCP restricts it: a flat object of primitive fields. */
export interface ElicitationForm {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
}

// Words that name a secret. Matched against a field's key and title split into words
// (camelCase, snake_case, kebab-case), and as phrases in its description.
const SECRET_WORDS = new Set(['password', 'passwd', 'pwd', 'passphrase', 'passcode', 'secret', 'token', 'apikey', 'credential', 'credentials', 'otp', 'totp', 'ssn', 'cvv', 'cvc', 'mnemonic', 'pin']);
const SECRET_PHRASES = [
  /\bapi[\s_-]?key\b/i,
  /\baccess[\s_-]?key\b/i,
  /\bprivate[\s_-]?key\b/i,
  /\bsecret[\s_-]?key\b/i,
  /\b(access|auth|bearer|refresh|session)[\s_-]?token\b/i,
  /\bseed[\s_-]?phrase\b/i,
  /\brecovery[\s_-]?(phrase|code)s?\b/i,
  /\bpassword\b/i,
  /\bcredit[\s_-]?card\b/i,
  /\bcard[\s_-]?number\b/i,
  /\bsocial security\b/i,
];

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/**
 * Form fields that look like they ask for a secret, by key, title, `format`
 * or description. The spec forbids servers to ask for secrets in form mode;
 * Airlock flags them (it cannot know for sure, so it never refuses on this alone).
 */
export function secretLookingFields(form: ElicitationForm): string[] {
  const out: string[] = [];
  for (const [key, field] of Object.entries(form.properties ?? {})) {
    const title = typeof field.title === 'string' ? field.title : '';
    const description = typeof field.description === 'string' ? field.description : '';
    const named = [...words(key), ...words(title)];
    const joined = named.join('');
    const byName = named.some((word) => SECRET_WORDS.has(word)) || /apikey|privatekey|secretkey|accesskey|authtoken/.test(joined);
    const byPhrase = SECRET_PHRASES.some((pattern) => pattern.test(`${key.replace(/_/g, ' ')} ${title}`));
    const byFormat = field.format === 'password' || field.writeOnly === true;
    const byDescription = SECRET_PHRASES.some((pattern) => pattern.test(description)) && !/\b(do not|don't|never)\b[^.]{0,60}\b(give|enter|share|send|type)\b/i.test(description);
    if (byName || byPhrase || byFormat || byDescription) out.push(key);
  }
  return out;
}

/** What Airlock found about a URL a server wants the person to open. */
export interface UrlReading {
  /** The URL as the server sent it (shown in full). */
  href: string;
  /** The host, as shown highlighted (Unicode form when it was Punycode). */
  host: string;
  /** The host as the browser will ask DNS for it. */
  asciiHost: string;
  punycode: boolean;
  /** Why it may not be offered at all; absent when it may. */
  problem?: string;
}

/**
 * Reads a URL for URL-mode elicitation: https only, no user name or
 * password in it, no IP literal in a private, loopback or link-local range
 * and no `localhost`; Punycode hosts are flagged.
 */
export function readElicitationUrl(raw: string): UrlReading {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { href: raw, host: '', asciiHost: '', punycode: false, problem: 'it is not a valid web address' };
  }
  const asciiHost = url.hostname;
  const punycode = asciiHost.split('.').some((label) => label.startsWith('xn--'));
  const host = punycode ? domainToUnicode(asciiHost) || asciiHost : asciiHost;
  const reading: UrlReading = { href: url.href, host, asciiHost, punycode };
  if (url.protocol !== 'https:') return { ...reading, problem: `it is not an https address (${url.protocol.replace(':', '')})` };
  if (url.username || url.password) return { ...reading, problem: 'it carries a user name or password' };
  const bare = asciiHost.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare.endsWith('.localhost') || bare.endsWith('.local')) return { ...reading, problem: 'it points at this computer or the local network' };
  if (isIP(bare) && isPrivateAddress(bare)) return { ...reading, problem: 'it points at a private, loopback or link-local address' };
  if (!bare.includes('.') && !isIP(bare)) return { ...reading, problem: 'it does not name a public host' };
  return reading;
}

/**
 * Loopback, private (RFC 1918, ULA), link-local, CGNAT, unspecified and every
 * other address that is not the internet — IPv4 inside IPv6 in any form
 * included — as the one address reading (`net/address-ranges.ts`) says.
 */
export function isPrivateAddress(address: string): boolean {
  return !isPublicAddress(address);
}

/** One thing wrong with an answer to a form. */
export interface FormProblem {
  field: string;
  message: string;
}

/**
 * Checks a person's answer against the form: only the fields it asked for,
 * each of its type (enums from their options, numbers within their bounds,
 * strings of their format), required ones present.
 */
export function checkFormAnswer(form: ElicitationForm, content: unknown): FormProblem[] {
  if (content === null || typeof content !== 'object' || Array.isArray(content)) return [{ field: '', message: 'the answer must be an object of field values' }];
  const answer = content as Record<string, unknown>;
  const problems: FormProblem[] = [];
  const properties = form.properties ?? {};
  for (const key of Object.keys(answer)) {
    if (!Object.hasOwn(properties, key)) problems.push({ field: key, message: 'the form does not ask for this' });
  }
  for (const key of form.required ?? []) {
    if (!Object.hasOwn(answer, key) || answer[key] === undefined) problems.push({ field: key, message: 'this is required' });
  }
  for (const [key, field] of Object.entries(properties)) {
    if (!Object.hasOwn(answer, key)) continue;
    const problem = checkField(field, answer[key]);
    if (problem) problems.push({ field: key, message: problem });
  }
  return problems;
}

/** The allowed values of an enum field (SEP-1330: enum, oneOf/const, legacy enumNames, multi-select). */
export function enumOptions(field: Record<string, unknown>): Array<{ value: string; title: string }> | undefined {
  const fromList = (list: unknown, titles?: unknown) =>
    Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string').map((value, i) => ({ value, title: Array.isArray(titles) && typeof titles[i] === 'string' ? (titles[i] as string) : value })) : undefined;
  const fromConsts = (list: unknown) =>
    Array.isArray(list)
      ? list.filter((o): o is { const: string; title?: string } => !!o && typeof o === 'object' && typeof (o as { const?: unknown }).const === 'string').map((o) => ({ value: o.const, title: typeof o.title === 'string' ? o.title : o.const }))
      : undefined;
  if (field.type === 'array') {
    const items = (field.items ?? {}) as Record<string, unknown>;
    return fromList(items.enum) ?? fromConsts(items.anyOf) ?? fromConsts(items.oneOf);
  }
  return fromList(field.enum, field.enumNames) ?? fromConsts(field.oneOf) ?? fromConsts(field.anyOf);
}

function checkField(field: Record<string, unknown>, value: unknown): string | undefined {
  const options = enumOptions(field);
  switch (field.type) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (field.type === 'integer' && !Number.isInteger(value)) return 'must be a whole number';
      if (typeof field.minimum === 'number' && value < field.minimum) return `must be at least ${field.minimum}`;
      if (typeof field.maximum === 'number' && value > field.maximum) return `must be at most ${field.maximum}`;
      return undefined;
    }
    case 'array': {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return 'must be a list of choices';
      if (options && value.some((v) => !options.some((o) => o.value === v))) return 'must be chosen from the options';
      if (typeof field.minItems === 'number' && value.length < field.minItems) return `choose at least ${field.minItems}`;
      if (typeof field.maxItems === 'number' && value.length > field.maxItems) return `choose at most ${field.maxItems}`;
      return undefined;
    }
    case 'string': {
      if (typeof value !== 'string') return 'must be text';
      if (options) return options.some((o) => o.value === value) ? undefined : 'must be one of the options';
      if (typeof field.minLength === 'number' && value.length < field.minLength) return `must be at least ${field.minLength} characters`;
      if (typeof field.maxLength === 'number' && value.length > field.maxLength) return `must be at most ${field.maxLength} characters`;
      if (field.format === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) return 'must be an email address';
      if (field.format === 'uri' && !URL.canParse(value)) return 'must be a web address';
      if (field.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return 'must be a date (YYYY-MM-DD)';
      if (field.format === 'date-time' && Number.isNaN(Date.parse(value))) return 'must be a date and time';
      return undefined;
    }
    default:
      return 'this field has a type Airlock does not know';
  }
}

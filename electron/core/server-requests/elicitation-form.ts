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
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { domainToUnicode } from 'node:url';
import { isPublicAddress, readHostName } from '../net/address-ranges';

/** A form as MCP restricts it: a flat object of primitive fields. */
export interface ElicitationForm {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
}

// Words that name a secret, in several languages. Matched against a field's key and title split
// into words (camelCase, snake_case, kebab-case, any script).
const SECRET_WORDS = new Set([
  'password', 'passwords', 'passwd', 'pwd', 'passphrase', 'passcode', 'secret', 'secrets', 'token', 'tokens', 'apikey', 'apitoken', 'credential', 'credentials',
  'otp', 'totp', 'hotp', '2fa', 'mfa', 'ssn', 'cvv', 'cvc', 'mnemonic', 'pin', 'pat',
  'passwort', 'kennwort', 'contraseña', 'contrasena', 'senha', 'wachtwoord', 'lösenord', 'losenord', 'passord', 'adgangskode', 'salasana', 'hasło', 'haslo', 'heslo',
  'şifre', 'sifre', 'parola', 'jeton', 'пароль', 'токен', 'пин',
]);

/** A pattern matched from the start of a word, in any script (`\b` knows only ASCII letters). */
function startOfWord(source: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${source})`, 'iu');
}

// Phrases that name a secret, in several languages, anywhere in a key, title, description or
// the form's message: English words whole, other Latin-script ones from the start of a word, other scripts as written.
const SECRET_PHRASES: readonly RegExp[] = [
  /\bapi[\s_-]?(?:key|token|secret)s?\b/i,
  /\b(?:access|private|secret|signing|ssh|gpg|pgp|license|licence)[\s_-]?keys?\b/i,
  /\bclient[\s_-]?secrets?\b/i,
  /\b(?:access|auth|bearer|refresh|session|id|api|oauth|personal|github|gitlab|slack|npm|pypi|discord|bot)[\s_-]?tokens?\b/i,
  /\bpersonal[\s_-]access\b/i,
  /\b(?:seed|recovery|mnemonic)[\s_-]?(?:phrase|words?|codes?|keys?)\b/i,
  /\bbackup[\s_-]?codes?\b/i,
  /\bpass(?:word|phrase|code|wd)s?\b/i,
  /\bpass[\s_-]phrase\b/i,
  /\bone[\s_-]?time[\s_-]?(?:code|password|passcode|pin|token)s?\b/i,
  /\b(?:verification|security|authentication|auth|login|sign[\s_-]?in|mfa|2fa|otp|sms)[\s_-]?codes?\b/i,
  /\b(?:2fa|mfa|otp|totp|two[\s_-]?factor|multi[\s_-]?factor|2[\s_-]?step)\b/i,
  /\b(?:credit|debit)[\s_-]?card\b/i,
  /\bcard[\s_-]?(?:number|verification)\b/i,
  /\bsocial security\b/i,
  /\bPAT\b/,
  /\bPIN\b/,
  /\bpin[\s_-]?(?:code|number)\b/i,
  /\bcredentials?\b/i,
  /\b(?:your|the|a|an|this|that|my|our)\s+(?:[\w-]+\s+){0,3}(?:token|secret)s?\b/i,
  /^\s*(?:token|secret)s?\b/i,
  // German, French, Spanish, Portuguese, Italian, Dutch, Nordic, Polish, Czech, Turkish, Vietnamese, Indonesian:
  // from the start of a word (inflected forms: Passwörter, hasła, şifrenizi)
  startOfWord('passw[oö]rt|kennw[oö]rt|zugangsdaten|zugangscode|einmalpasswort|bestätigungscode|api[\\s-]?schlüssel|geheimer schlüssel|zugangstoken'),
  startOfWord('mots? de passe|jeton|clé (?:d[\'’])?api|clé secrète|code de (?:vérification|confirmation)|identifiants'),
  startOfWord('contraseña|contrasena|clave (?:de )?api|clave secreta|clave de acceso|código de (?:verificación|acceso|seguridad)'),
  startOfWord('senha|chave (?:de )?api|chave secreta|código de (?:verificação|acesso|segurança)'),
  startOfWord('parola d[\'’]ordine|chiave (?:api|segreta)|codice di (?:verifica|accesso)'),
  startOfWord('wachtwoord|toegangscode|lösenord|passord|adgangskode|salasana|hasło|hasła|haslo|heslo|hesla|şifre|sifre|parola'),
  startOfWord('mật khẩu|kata sandi|kata laluan'),
  // Cyrillic, Greek, Arabic, Hebrew, Hindi, Thai, Japanese, Chinese, Korean
  /пароль|токен|ключ api|api[- ]ключ|секретный ключ|код подтверждения|парол/i,
  /κωδικός πρόσβασης|συνθηματικό/i,
  /كلمة (?:المرور|السر)|رمز التحقق/,
  /סיסמ/,
  /पासवर्ड/,
  /รหัสผ่าน/,
  /パスワード|暗証番号|トークン|秘密鍵|api ?キー|認証コード|ワンタイム/i,
  /密码|密碼|口令|令牌|密钥|密鑰|秘钥|金鑰|验证码|驗證碼/,
  /비밀번호|암호|토큰|인증 ?코드|인증 ?번호/,
];

// The opening of a credential as the services that issue it write it: naming one asks for one.
const TOKEN_PREFIXES =
  /(?<![A-Za-z0-9])(?:ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|glptt-|sk-|sk_live_|sk_test_|rk_live_|xox[abposr]-|xapp-|AKIA|ASIA|AIza|ya29\.|npm_|pypi-|hf_|shpat_|dop_v1_|SG\.)|-----BEGIN [A-Z ]*PRIVATE KEY-----/;

// "Do not give us your pin": a clause that only warns against sharing — unless it still asks for one ("anything but your token").
const WARNS_AGAINST = /\b(?:do not|don['’]t|never|no need to)\s+(?:(?:ever|actually|really|you)\s+)?(?:give|enter|share|send|type|paste|provide|disclose|reveal)\b/i;
const STILL_ASKS = /\b(?:but|except|only|other than|besides|apart from|instead|rather)\b/i;

function words(text: string): string[] {
  return text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/**
 * Whether a text a server wrote (a form's message, a field's title or
 * description) asks for a secret: credential words in several languages, or
 * the opening of a known token (`ghp_`, `sk-`, `AKIA` …). A clause that only
 * warns against sharing one ("do not give us your pin") does not count.
 */
export function asksForSecret(text: string): boolean {
  if (TOKEN_PREFIXES.test(text)) return true;
  // Clause by clause, so a warning in one sentence does not hide a request in the next.
  return text.split(/[.!?;:\n。！？；：]+/u).some((clause) => SECRET_PHRASES.some((pattern) => pattern.test(clause)) && (!WARNS_AGAINST.test(clause) || STILL_ASKS.test(clause)));
}

/** A field a secret can be typed into: free text or a number (a PIN, a one-time code); never a choice or a yes/no. */
function canCarrySecret(field: Record<string, unknown>): boolean {
  if (enumOptions(field)) return false;
  if (field.type === 'number' || field.type === 'integer') return true;
  return field.type === 'string' && !['date', 'date-time', 'email'].includes(String(field.format ?? ''));
}

/**
 * Form fields that look like they ask for a secret, by key, title, `format`,
 * description or default, or — when the form's `message` asks for one —
 * every field a secret can be typed into. The spec forbids servers to ask
 * for secrets in form mode; Airlock flags them (it cannot know for sure, so
 * it never refuses on this alone).
 */
export function secretLookingFields(form: ElicitationForm, message?: string): string[] {
  const out: string[] = [];
  const byMessage = typeof message === 'string' && asksForSecret(message);
  for (const [key, field] of Object.entries(form.properties ?? {})) {
    const title = typeof field.title === 'string' ? field.title : '';
    const description = typeof field.description === 'string' ? field.description : '';
    const named = [...words(key), ...words(title)];
    const joined = named.join('');
    const byName = named.some((word) => SECRET_WORDS.has(word)) || /apikey|apitoken|privatekey|secretkey|accesskey|authtoken|accesstoken|clientsecret/.test(joined);
    const byPhrase = asksForSecret(`${words(key).join(' ')}. ${title}`);
    const byFormat = field.format === 'password' || field.writeOnly === true;
    const byDescription = asksForSecret(description) || (typeof field.default === 'string' && TOKEN_PREFIXES.test(field.default));
    if (byName || byPhrase || byFormat || byDescription || (byMessage && canCarrySecret(field))) out.push(key);
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
 * and no name that is never the internet (`localhost.`, `.local`,
 * `.internal`, a name without a domain …); Punycode hosts are flagged.
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
  if (isIP(bare)) return isPrivateAddress(bare) ? { ...reading, problem: 'it points at a private, loopback or link-local address' } : reading;
  // The one name reading (net/address-ranges.ts): `localhost.`, `printer.local`, `metadata.google.internal`, `intranet` …
  const name = readHostName(bare);
  if (!name) return reading;
  return { ...reading, problem: name.singleLabel || name.range === 'reserved' ? 'it does not name a public host' : 'it points at this computer or the local network' };
}

/** Every address a host name resolves to. */
export type ResolveHost = (host: string) => Promise<readonly string[]>;

/** How long Airlock waits for a URL's name to resolve (then it goes by the name alone, which passed the checks). */
export const RESOLVE_BOUND_MS = 3_000;

const systemResolve: ResolveHost = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * A URL that passed `readElicitationUrl`, its name looked up as the browser
 * will: a problem when any address it resolves to is not the internet
 * (`127.0.0.1.nip.io`, a name its owner points at 192.168.1.1). A name
 * that does not resolve here (in time) is left as it was: the browser will
 * not reach it either. A reading with a problem, or an address, is returned
 * as it is. Never rejects.
 * The browser looks the name up again when it opens it, so a name whose
 * answer changes in between (DNS rebinding) is not caught: this is a check,
 * not a fence — the sandbox's network proxy is the fence for servers.
 */
export async function withResolvedName(reading: UrlReading, resolve: ResolveHost = systemResolve): Promise<UrlReading> {
  if (reading.problem) return reading;
  const host = reading.asciiHost.replace(/^\[|\]$/g, '');
  if (!host || isIP(host)) return reading;
  const late = new Promise<readonly string[]>((done) => setTimeout(() => done([]), RESOLVE_BOUND_MS).unref());
  const addresses = await Promise.race([resolve(host).catch((): readonly string[] => []), late]);
  const inside = addresses.find((address) => isIP(address) && isPrivateAddress(address));
  return inside === undefined ? reading : { ...reading, problem: `its name leads to ${inside}, this computer or the local network` };
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
    Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string').map((value, i) => ({ value, title: Array.isArray(titles) && typeof titles[i] === 'string' ? (titles[i]) : value })) : undefined;
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

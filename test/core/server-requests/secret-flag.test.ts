// "This looks like it asks for a secret" on a server's form: read from the form's message as well as
// its fields, in several languages, and from the openings of known tokens — as one table. The red
// team's forms ("Paste your GitHub personal access token…", a field titled "Kennwort", a key "PAT")
// went unflagged: the old flag read only keys and titles, against a short English list.
import { describe, expect, it } from 'vitest';
import { asksForSecret, secretLookingFields, type ElicitationForm } from '../../../electron/core/server-requests/elicitation-form';
import { toServerRequestView } from '../../../electron/core/server-requests/views';
import type { ElicitationFormQuestion } from '../../../electron/core/server-requests/questions';

const form = (properties: ElicitationForm['properties']): ElicitationForm => ({ type: 'object', properties });
const text = { type: 'string' } as const;

describe('asksForSecret: a server’s words that ask for a credential', () => {
  it.each([
    // English, the red team's first
    ['Paste your GitHub personal access token to continue.', true],
    ['Enter your PAT', true],
    ['We need your API key.', true],
    ['Please type the one-time code we sent you', true],
    ['Your 2FA code, please', true],
    ['Enter the 6-digit verification code', true],
    ['Your passphrase unlocks the vault', true],
    ['Type your password again', true],
    ['Enter your client secret', true],
    ['Paste the bearer token', true],
    ['Your recovery phrase (12 words)', true],
    ['The PIN of your card', true],
    ['Sign in with your credentials', true],
    // Other languages
    ['Bitte geben Sie Ihr Kennwort ein', true],
    ['Ihr Passwort für das Konto', true],
    ['Entrez votre mot de passe', true],
    ['Collez votre jeton d’accès', true],
    ['Introduzca su contraseña', true],
    ['Digite sua senha', true],
    ['Inserisci la parola d’ordine', true],
    ['Voer je wachtwoord in', true],
    ['Ange ditt lösenord', true],
    ['Wpisz hasło', true],
    ['Zadejte heslo', true],
    ['Şifrenizi girin: şifre', true],
    ['Введите пароль', true],
    ['Вставьте токен доступа', true],
    ['パスワードを入力してください', true],
    ['请输入您的密码', true],
    ['請輸入驗證碼', true],
    ['비밀번호를 입력하세요', true],
    ['أدخل كلمة المرور', true],
    ['הזן סיסמה', true],
    ['Nhập mật khẩu của bạn', true],
    // The openings of known tokens
    ['Paste the value that starts with ghp_', true],
    ['It looks like github_pat_11ABC…', true],
    ['Your key (sk-…)', true],
    ['The bot token, xoxb-…', true],
    ['AKIA… and the rest of it', true],
    ['A glpat- value from GitLab settings', true],
    ['Your npm_ automation value', true],
    ['-----BEGIN OPENSSH PRIVATE KEY-----', true],
    // A warning in one sentence does not hide a request in the next; "anything but" still asks
    ['Never type anything else here. Paste your token.', true],
    ['Do not give us anything but your API key', true],
    ['Do not forget to paste your token', true],
    // Not a request for a secret
    ['What is your favourite colour?', false],
    ['Your full, legal name', false],
    ['Do not give us your password; just your name', false],
    ['Never share your password with anyone', false],
    ['Pick a tokenizer', false],
    ['Pin this note to the top?', false],
    ['A risk-free choice', false],
    ['Pat the dog', false],
    ['Which desk-top theme?', false],
  ] as const)('%j → %s', (message, expected) => {
    expect(asksForSecret(message)).toBe(expected);
  });
});

describe('secretLookingFields: which fields of a form are flagged', () => {
  it.each([
    // The message asks: every field a secret can be typed into is flagged, never a choice or a yes/no.
    ['Paste your GitHub personal access token to continue.', { value: text }, ['value']],
    ['Paste your GitHub personal access token to continue.', { value: text, remember: { type: 'boolean' }, scope: { type: 'string', enum: ['repo', 'read'] } }, ['value']],
    ['Enter the code we texted you', { code: { type: 'integer' } }, []],
    ['Enter the verification code we texted you', { code: { type: 'integer' } }, ['code']],
    ['Paste the key that starts with sk-', { answer: text, when: { type: 'string', format: 'date' } }, ['answer']],
    ['Введите пароль', { поле: text }, ['поле']],
    ['Please confirm your details', { name: text }, []],
    // Keys and titles, in several languages
    ['Please confirm', { PAT: text }, ['PAT']],
    ['Please confirm', { pat: text }, ['pat']],
    ['Please confirm', { field: { type: 'string', title: 'Kennwort' } }, ['field']],
    ['Please confirm', { kennwort: text }, ['kennwort']],
    ['Please confirm', { motDePasse: text }, ['motDePasse']],
    ['Please confirm', { contraseña: text }, ['contraseña']],
    ['Please confirm', { senha: text }, ['senha']],
    ['Please confirm', { f: { type: 'string', title: 'パスワード' } }, ['f']],
    ['Please confirm', { f: { type: 'string', title: '密码' } }, ['f']],
    ['Please confirm', { otp_code: text }, ['otp_code']],
    ['Please confirm', { mfaCode: text }, ['mfaCode']],
    ['Please confirm', { clientSecret: text }, ['clientSecret']],
    ['Please confirm', { githubAccessToken: text }, ['githubAccessToken']],
    // Descriptions and defaults that name a token's opening
    ['Please confirm', { value: { type: 'string', description: 'Starts with ghp_' } }, ['value']],
    ['Please confirm', { value: { type: 'string', default: 'xoxb-' } }, ['value']],
    // Not secrets
    ['Please confirm your details', { name: { type: 'string', description: 'Your name' }, age: { type: 'integer' }, status: { type: 'string', enum: ['active', 'inactive'] } }, []],
    ['Please confirm', { tokenizer: { type: 'string', enum: ['bpe', 'wordpiece'] } }, []],
    ['Please confirm', { email: { type: 'string', format: 'email' } }, []],
  ] as const)('%j with %j → %j', (message, properties, expected) => {
    expect(secretLookingFields(form(properties as ElicitationForm['properties']), message)).toEqual(expected);
  });

  it('without a message, only the fields themselves count (as before)', () => {
    expect(secretLookingFields(form({ value: text }))).toEqual([]);
    expect(secretLookingFields(form({ password: text }))).toEqual(['password']);
  });
});

describe('what the person is shown: the view flags the fields the message asks a secret for', () => {
  const question = (message: string, secretFields: string[] = []): ElicitationFormQuestion => ({
    kind: 'elicitation-form',
    requestId: 'r1',
    server: 'hostile',
    reasons: [],
    message,
    requestedSchema: { type: 'object', properties: { value: { type: 'string' }, remember: { type: 'boolean' } } },
    secretFields,
  });
  const fields = (message: string, secretFields?: string[]) => {
    const view = toServerRequestView({ id: 'q1', question: question(message, secretFields), openedAt: 0, deadline: 1, routedTo: [] });
    if (view.kind !== 'elicitation-form') throw new Error('not a form');
    return Object.fromEntries(view.fields.map((field) => [field.key, field.secretLooking]));
  };

  it('the red team’s form: “Paste your GitHub personal access token…” with one field named value', () => {
    expect(fields('Paste your GitHub personal access token to continue.')).toEqual({ value: true, remember: false });
  });

  it('a harmless message flags nothing; what the fields themselves say still counts', () => {
    expect(fields('Please confirm your details')).toEqual({ value: false, remember: false });
    expect(fields('Please confirm your details', ['value'])).toEqual({ value: true, remember: false });
  });
});

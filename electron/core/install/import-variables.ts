/**
 * The variables another app fills into a server's command line and
 * environment — VS Code's `${input:id}`, `${userHome}`, `${workspaceFolder}`,
 * `${env:NAME}` (Cursor understands the last three as well) — read into what
 * Airlock can carry over: a path, a secret for the person to enter, a setting
 * to fill in, or a reason it cannot.
 *
 * SECURITY (SECURITY.md rule 10): a value the app asked for at start (an
 * input) or read from its environment becomes a secret granted to this
 * server alone; a credential written in the file moves to the secret store.
 */
import type { SecretRequest, UserConfigField } from './candidate';
import { ConfigImportError, describeValue, isPlainObject, SECRET_NAME } from './config-shape';

/** One of VS Code's `inputs`: a value it asks the person for when the server starts. */
export interface VsCodeInput {
  id: string;
  type: string;
  description?: string;
  password: boolean;
  options?: string[];
  default?: string;
}

/** Reads VS Code's `inputs` list; throws naming the file when it is not one. */
export function readInputs(path: string, raw: unknown): Map<string, VsCodeInput> {
  const inputs = new Map<string, VsCodeInput>();
  if (raw === undefined) return inputs;
  if (!Array.isArray(raw)) throw new ConfigImportError(path, `“inputs” must be a list, found ${describeValue(raw)}`);
  raw.forEach((input, index) => {
    if (!isPlainObject(input) || typeof input.id !== 'string' || !input.id) {
      throw new ConfigImportError(path, `inputs[${index}] needs an “id”`);
    }
    inputs.set(input.id, {
      id: input.id,
      type: typeof input.type === 'string' ? input.type : 'promptString',
      ...(typeof input.description === 'string' ? { description: input.description } : {}),
      password: input.password === true,
      ...(Array.isArray(input.options) ? { options: input.options.filter((o): o is string => typeof o === 'string') } : {}),
      ...(typeof input.default === 'string' ? { default: input.default } : {}),
    });
  });
  return inputs;
}

/** What the variables are filled from. */
export interface VariableContext {
  home: string;
  /** The folder `${workspaceFolder}` stands for, when known. */
  workspace?: string;
  inputs: ReadonlyMap<string, VsCodeInput>;
}

/** An entry's command line and environment with its variables read. */
export interface EntryValues {
  command: string;
  args: string[];
  cwd?: string;
  /** Plain settings, with their values. */
  env: Record<string, string>;
  secrets: SecretRequest[];
  /** Secret values found written in the file, by env var name (to be moved into the secret store). */
  secretValues: Record<string, string>;
  userConfig: UserConfigField[];
  warnings: string[];
  /** Why the entry cannot be carried over (the first variable Airlock cannot fill). */
  refusal?: string;
  /** The refusal is only for want of the workspace folder: given one, the entry can be imported. */
  needsWorkspace?: boolean;
}

/** The name a secret takes from a VS Code input id: `brave-api-key` → BRAVE_API_KEY. */
export function inputSecretName(id: string): string {
  const name = id.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 64);
  return /^[A-Z_]/.test(name) ? name : `INPUT_${name}`.slice(0, 64);
}

/** The secret request for a VS Code input, passed as the variable `name`. */
export function inputSecret(name: string, input: VsCodeInput): SecretRequest {
  return { name, description: input.description ?? `VS Code asks for “${input.id}” when it starts the server`, required: true, from: 'vscode-input', key: input.id };
}

/**
 * Fills an entry's variables. A variable that is an environment variable's
 * whole value and names an input becomes a secret the person enters (VS Code
 * never wrote its value down: it asked for it); one read from the app's
 * environment becomes a secret too. Inside a longer value only inputs that
 * are not passwords can be carried over (as settings to fill in); a password
 * there, `${env:…}` there, or an unknown input is a refusal.
 */
export function readEntryValues(
  raw: { command: string; args: readonly string[]; cwd?: string; env: Readonly<Record<string, string>> },
  context: VariableContext,
): EntryValues {
  const secrets: SecretRequest[] = [];
  const userConfig = new Map<string, UserConfigField>();
  const secretValues: Record<string, string> = Object.create(null) as Record<string, string>;
  const warnings: string[] = [];
  let refusal: string | undefined;
  let needsWorkspace = false;
  const refuse = (reason: string, forWorkspace = false) => {
    if (refusal !== undefined) return;
    refusal = reason;
    needsWorkspace = forWorkspace;
  };

  const substitute = (text: string, where: string): string =>
    text.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
      if (name === 'userHome') return context.home;
      if (name === 'workspaceFolder' || name.startsWith('workspaceFolder:')) {
        if (context.workspace) return context.workspace;
        refuse(`${where} uses ${whole}, and no workspace folder was given: say which folder it is (\`airlock import --workspace FOLDER\`), or import that folder's .vscode/mcp.json`, true);
        return whole;
      }
      if (name.startsWith('input:')) {
        const input = context.inputs.get(name.slice('input:'.length));
        if (!input) {
          refuse(`${where} uses ${whole}, which “inputs” does not define`);
          return whole;
        }
        if (input.password) {
          refuse(`${where} uses the password input “${input.id}” inside a command line or a longer value; Airlock passes secrets only as a whole environment variable`);
          return whole;
        }
        userConfig.set(input.id, {
          key: input.id,
          title: input.description ?? input.id,
          ...(input.description ? { description: input.description } : {}),
          type: 'string',
          required: input.default === undefined,
          ...(input.default !== undefined ? { default: input.default } : {}),
        });
        return `\${user_config.${input.id}}`;
      }
      if (name.startsWith('env:')) {
        refuse(`${where} reads ${whole} from the environment of the app; Airlock does not pass its own environment on`);
        return whole;
      }
      warnings.push(`${whole} in ${where} is not a variable Airlock knows; it is passed on as written`);
      return whole;
    });

  const env: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(raw.env)) {
    const inputRef = /^\$\{input:([^}]+)\}$/.exec(value);
    const envRef = /^\$\{env:([^}]+)\}$/.exec(value);
    const input = inputRef ? context.inputs.get(inputRef[1]!) : undefined;
    if (input) {
      // SECURITY (SECURITY.md rule 10): what VS Code asked for at start becomes a secret granted per server.
      secrets.push(inputSecret(name, input));
      continue;
    }
    if (envRef) {
      secrets.push({ name, description: `was read from the app's environment variable ${envRef[1]}`, required: true, from: 'imported-env', key: envRef[1]! });
      continue;
    }
    if (SECRET_NAME.test(name) && !value.includes('${')) {
      // SECURITY (SECURITY.md rule 10): credentials found in plain config move to the secret store.
      secrets.push({ name, description: 'found in the imported config; moved to the secret store', required: true, from: 'imported-env' });
      secretValues[name] = value;
      continue;
    }
    env[name] = substitute(value, `env.${name}`);
  }
  const command = substitute(raw.command, 'command');
  const args = raw.args.map((arg, index) => substitute(arg, `args[${index}]`));
  const cwd = raw.cwd !== undefined ? substitute(raw.cwd, 'cwd') : undefined;
  return {
    command,
    args,
    ...(cwd !== undefined ? { cwd } : {}),
    env,
    secrets,
    secretValues,
    userConfig: [...userConfig.values()],
    warnings,
    ...(refusal !== undefined ? { refusal } : {}),
    ...(needsWorkspace ? { needsWorkspace: true } : {}),
  };
}

/**
 * What an entry of another app's config becomes when Airlock reads it (see
 * import-entry.ts): an offer — a local command, an npm or PyPI package to
 * pin, a remote server — or the reason it is not one.
 */
import type { ImportOrigin } from '../../../shared/domain';
import type { AirlockEntryKind } from './airlock-entries';
import type { InstallCandidate, SecretRequest, UserConfigField } from './candidate';
import type { CommandLineRisk } from './command-line-risk';
import type { RemoteSourceInput } from './remote-source';

/** What a package runner's entry (npx, uvx, pipx run) becomes, for either registry. */
export interface PackageImportOffer {
  /** Arguments after the package. */
  userArgs: string[];
  env: Record<string, string>;
  secrets: SecretRequest[];
  userConfig: UserConfigField[];
  /** The entry's own command line and what it risks (`npx -y` runs whatever is newest). */
  originalArgv: string[];
  originalRisks: CommandLineRisk[];
  warnings: string[];
}

/** What an npx entry becomes: an offer to install the package pinned, resolved when the caller asks. */
export interface NpmImportOffer extends PackageImportOffer {
  /** `name` or `name@range`, as the entry named it. */
  packageSpec: string;
}

/**
 * What a `uvx PKG` (or `uv tool run`, `pipx run`) entry becomes: an offer to
 * install the Python package pinned into a virtual environment of its own,
 * resolved when the caller asks — instead of a download at every start.
 */
export interface PypiImportOffer extends PackageImportOffer {
  /** `name`, `name==1.2.3` or `name@1.2.3`, as the entry named it (`--from` wins). */
  packageSpec: string;
  /** The program the entry ran, when `--from` named the package separately. */
  scriptName?: string;
}

interface EntryBase {
  /** The entry's key in the file. */
  entry: string;
  origin: ImportOrigin;
  /** What it runs, as the file wrote it: its command line, or its address. */
  runs?: string;
}

/**
 * One server entry of an imported config. Importable entries arrive
 * disabled, awaiting disclosure; unsupported and invalid ones are listed
 * with their reason, never dropped silently; Airlock's own are named as such.
 */
export type ImportEntry =
  | (EntryBase & {
      status: 'importable';
      suggestedName: string;
      /** Imported servers never start until the user has seen the disclosure and enabled them. */
      enabled: false;
      /**
       * Secret values found in the file (env vars that look like credentials), by env var
       * name: hand them to the secret store. SECURITY (SECURITY.md rule 10): never persist
       * them with the server record.
       */
      secretValues: Record<string, string>;
      offer:
        | { kind: 'local'; candidate: InstallCandidate }
        | { kind: 'npm'; npm: NpmImportOffer }
        | { kind: 'pypi'; pypi: PypiImportOffer }
        | { kind: 'remote'; remote: RemoteSourceInput; warnings: string[]; secrets?: SecretRequest[] };
    })
  | (EntryBase & {
      status: 'unsupported';
      reason: string;
      /** It can be imported once the folder `${workspaceFolder}` stands for is given. */
      needsWorkspace?: boolean;
    })
  | (EntryBase & { status: 'invalid'; reason: string })
  | (EntryBase & {
      /** Airlock's own entry: its gateway (`airlock gateway --stdio`) or one server served by it (`airlock run NAME`). */
      status: 'airlock';
      kind: AirlockEntryKind;
      reason: string;
    });

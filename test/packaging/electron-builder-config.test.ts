import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Configuration } from 'app-builder-lib';
import { validateConfiguration } from 'app-builder-lib/out/util/config/config';
import { loadConfig } from 'app-builder-lib/out/util/config/load';
import { DebugLogger } from 'builder-util/out/DebugLogger';
import { beforeAll, describe, expect, it } from 'vitest';

// electron-builder cannot package here (it downloads Electron), so this file
// holds electron-builder.yml to what electron-builder itself would do with it:
// its own loader finds and parses the file, its own schema validator judges it.

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const packageJson = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Record<string, unknown>;
const schema = JSON.parse(
  readFileSync(join(repoRoot, 'node_modules/app-builder-lib/scheme.json'), 'utf8'),
) as { definitions: Record<string, { properties: Record<string, unknown> }> };

/** Validates with electron-builder's schema; resolves to the error message, or undefined when valid. */
async function schemaError(config: Configuration): Promise<string | undefined> {
  try {
    await validateConfiguration(config, new DebugLogger(false));
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Lets a test hand the validator a configuration the types would refuse. */
function unchecked(value: unknown): Configuration {
  return value as Configuration;
}

/** Target names of one platform section, as plain strings. */
function targetNames(section: { target?: unknown } | null | undefined): string[] {
  const raw = section?.target;
  const list = Array.isArray(raw) ? raw : raw == null ? [] : [raw];
  return list.map((t) => (typeof t === 'string' ? t : (t as { target: string }).target));
}

let config: Configuration;
let configFile: string | null;

beforeAll(async () => {
  // The same lookup `electron-builder` does with no --config: package.json's
  // "build" key first, then electron-builder.yml in the project folder.
  const found = await loadConfig<Configuration>({
    packageKey: 'build',
    configFilename: 'electron-builder',
    projectDir: repoRoot,
    packageMetadata: null,
  });
  if (found === null) throw new Error('electron-builder found no configuration in the project');
  config = found.result;
  configFile = found.configFile;
});

describe('electron-builder.yml as electron-builder sees it', () => {
  it('is the file electron-builder loads (package.json has no "build" key overriding it)', () => {
    expect(packageJson).not.toHaveProperty('build');
    expect(configFile).toBe(join(repoRoot, 'electron-builder.yml'));
  });

  it("passes electron-builder's own schema validation", async () => {
    expect(await schemaError(config)).toBeUndefined();
  });

  describe('the validator is not a no-op', () => {
    it('rejects a misspelt top-level key with the schema message', async () => {
      const message = await schemaError(unchecked({ ...config, asarr: true }));
      expect(message).toMatch(/does not match the API schema/);
      expect(message).toMatch(/unknown property 'asarr'/);
    });

    it('rejects a misspelt fuse', async () => {
      const fuses = { ...config.electronFuses, runAsnode: false };
      const message = await schemaError(unchecked({ ...config, electronFuses: fuses }));
      expect(message).toMatch(/does not match the API schema/);
      expect(message).toMatch(/configuration\.electronFuses/);
    });

    it('rejects a bogus macOS target with the schema message', async () => {
      const message = await schemaError(unchecked({ ...config, mac: { ...config.mac, target: ['dgm'] } }));
      expect(message).toMatch(/does not match the API schema/);
      expect(message).toMatch(/configuration\.mac/);
    });

    it('rejects a fuse set to a non-boolean', async () => {
      const fuses = { ...config.electronFuses, runAsNode: 'no' };
      expect(await schemaError(unchecked({ ...config, electronFuses: fuses }))).toMatch(
        /configuration\.electronFuses/,
      );
    });

    it('does NOT reject a bogus Linux or Windows target: the schema types them as any string', async () => {
      // Only mac targets are an enum in scheme.json; a typo like "dbe" would
      // surface only at build time ("Unknown target"). The exact-target
      // assertions below are what guard these two platforms.
      const linux = { ...config.linux, target: ['AppImage', 'dbe'] };
      const win = { ...config.win, target: ['nsiss'] };
      expect(await schemaError(unchecked({ ...config, linux, win }))).toBeUndefined();
    });
  });

  it('builds AppImage and deb on Linux, dmg on macOS, nsis on Windows', () => {
    expect(targetNames(config.linux)).toEqual(['AppImage', 'deb']);
    expect(targetNames(config.mac)).toEqual(['dmg']);
    expect(targetNames(config.win)).toEqual(['nsis']);
    // A root-level target would apply to every platform and muddle the above.
    expect(config.target).toBeUndefined();
  });

  it('names the app', () => {
    expect(config.appId).toBe('dev.airlock.app');
    expect(config.productName).toBe('Airlock');
  });

  it('packs the app into an asar archive with only the build output', () => {
    expect(config.asar).toBe(true);
    // electron-builder adds package.json and the production dependencies on its own.
    expect(config.files).toEqual(['out/**', 'package.json']);
    expect(config.directories?.buildResources).toBe('build');
  });

  it('keeps the sandbox helper that asarUnpack names on disk, and it exists where named', () => {
    const unpack = Array.isArray(config.asarUnpack) ? config.asarUnpack : [config.asarUnpack];
    expect(unpack).toContain('node_modules/@anthropic-ai/sandbox-runtime/vendor/**');
    // If sandbox-runtime moves its helper, the pattern silently stops matching.
    expect(existsSync(join(repoRoot, 'node_modules/@anthropic-ai/sandbox-runtime/vendor/seccomp'))).toBe(true);
  });

  describe('Electron fuses (SECURITY.md: Electron checklist)', () => {
    it.each([
      ['runAsNode', false],
      ['enableNodeOptionsEnvironmentVariable', false],
      ['enableNodeCliInspectArguments', false],
      ['enableCookieEncryption', true],
      ['enableEmbeddedAsarIntegrityValidation', true],
      ['onlyLoadAppFromAsar', true],
      ['grantFileProtocolExtraPrivileges', false],
    ] as const)('%s is %s', (fuse, value) => {
      expect(config.electronFuses?.[fuse]).toBe(value);
    });

    it('decides every security fuse the installed electron-builder knows', () => {
      // A newer electron-builder adding a fuse fails this until someone decides it.
      const notSecurity = new Set(['loadBrowserProcessSpecificV8Snapshot', 'resetAdHocDarwinSignature']);
      const known = Object.keys(schema.definitions.FuseOptionsV1?.properties ?? {}).filter((f) => !notSecurity.has(f));
      expect(known.length).toBeGreaterThanOrEqual(7);
      expect(Object.keys(config.electronFuses ?? {}).sort()).toEqual(known.sort());
    });
  });

  it('gives the deb target what fpm refuses to build without', () => {
    // FpmTarget.computeFpmMetaInfoOptions: a maintainer (or an author email in
    // package.json) and a project homepage (package.json or extraMetadata).
    const author = packageJson.author as { email?: string } | undefined;
    const maintainer = config.deb?.maintainer ?? config.linux?.maintainer ?? author?.email;
    expect(maintainer).toMatch(/^.+ <[^@\s]+@[^@\s]+>$/);
    const homepage = (config.extraMetadata as { homepage?: string } | undefined)?.homepage ?? packageJson.homepage;
    expect(homepage).toMatch(/^https:\/\//);
    const description = config.deb?.description ?? config.linux?.description ?? packageJson.description;
    expect(description).toEqual(expect.any(String));
  });

  it("keeps electron-builder's default deb dependencies when adding the sandbox's", () => {
    // Setting `depends` replaces the defaults (FpmTarget.getDefaultDepends) rather than adding to them.
    const defaults = ['libgtk-3-0', 'libnotify4', 'libnss3', 'libxss1', 'libxtst6', 'xdg-utils', 'libatspi2.0-0', 'libuuid1', 'libsecret-1-0'];
    expect(config.deb?.depends).toEqual(expect.arrayContaining([...defaults, 'bubblewrap', 'socat', 'ripgrep']));
  });
});

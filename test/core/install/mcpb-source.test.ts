import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signMcpbFile } from '@anthropic-ai/mcpb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyUserConfig, unresolvedUserConfig, UserConfigError } from '../../../electron/core/install/candidate';
import { McpbError, readMcpbBundle, unpackMcpbBundle, validateMcpbManifest } from '../../../electron/core/install/mcpb-source';
import { buildEchoBundle, echoManifest } from '../../fixtures/install/build-bundle';
import { writeZip } from '../../fixtures/install/zip-writer';

let work: string;
let bundlePath: string;
const home = '/home/tester';

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'airlock-mcpb-'));
  bundlePath = await buildEchoBundle(work);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('MCPB bundle source', () => {
  it('reads a bundle it built itself: manifest valid, no signature, secrets and settings separated', async () => {
    const serverDir = join(work, 'data', 'servers', 'echo');
    const bundle = await readMcpbBundle(bundlePath, { serverDir, home });
    expect(bundle.signature).toBe('none');
    expect(bundle.manifestVersion).toBe('0.4');
    expect(bundle.bundleSha256).toBe(execFileSync('sha256sum', [bundlePath], { encoding: 'utf8' }).split(' ')[0]);
    const { candidate } = bundle;
    expect(candidate.provenance).toEqual({
      kind: 'mcpb',
      name: 'mcpb-echo',
      version: '1.0.0',
      author: 'Airlock tests',
      signature: 'none',
      bundleSha256: bundle.bundleSha256,
      installDir: serverDir,
    });
    expect(candidate.suggestedName).toBe('mcpb-echo');
    expect(candidate.spec).toEqual({
      command: process.execPath,
      args: [join(serverDir, 'server/index.mjs'), '${user_config.workspace}'],
      // SECURITY: the sensitive api_key is not in the spec, only its env var name as a secret.
      env: { GREETING: '${user_config.greeting}' },
      cwd: serverDir,
    });
    expect(candidate.requested.secrets).toEqual([
      { name: 'ECHO_API_KEY', description: 'Key for the echo service', required: true, from: 'mcpb-user-config', key: 'api_key' },
    ]);
    expect(candidate.requested.userConfig.map((field) => [field.key, field.type, field.default])).toEqual([
      ['greeting', 'string', 'hello'],
      // ${HOME} in a default is expanded against the injected home, and said so.
      ['workspace', 'directory', '/home/tester/Documents'],
    ]);
    expect(candidate.warnings).toContain('${HOME} in user_config.workspace.default is your folder /home/tester');
    expect(candidate.mcpb?.declaredTools).toEqual(['echo', 'greeting']);
    expect(unresolvedUserConfig(candidate.spec).sort()).toEqual(['greeting', 'workspace']);
    // Nothing was written yet.
    await expect(stat(serverDir)).rejects.toThrow();
  });

  it('unpacks, fills in settings, and the resulting spec runs and lists its tools', async () => {
    const serverDir = join(work, 'data', 'servers', 'echo-run');
    const workspace = join(work, 'workspace');
    await mkdir(workspace);
    const bundle = await readMcpbBundle(bundlePath, { serverDir, home });
    const result = await unpackMcpbBundle(bundle);
    expect(result.files).toBe(2);
    expect((await readdir(serverDir)).sort()).toEqual(['manifest.json', 'server']);

    expect(() => applyUserConfig(bundle.candidate, { api_key: 'x' })).toThrow(UserConfigError);
    const ready = applyUserConfig(bundle.candidate, { greeting: 'bonjour', workspace }, { home });
    expect(unresolvedUserConfig(ready.spec)).toEqual([]);
    expect(ready.spec.args).toEqual([join(serverDir, 'server/index.mjs'), workspace]);
    expect(ready.spec.env).toEqual({ GREETING: 'bonjour' });
    // The folder the setting names is a hint for the profile, not a grant.
    expect(ready.profileHints).toContainEqual(expect.objectContaining({ path: workspace, access: 'read-write' }));

    const transport = new StdioClientTransport({
      command: ready.spec.command,
      args: ready.spec.args,
      cwd: ready.spec.cwd,
      // The launcher injects granted secrets as env vars; this test stands in for it.
      env: { ...ready.spec.env, ECHO_API_KEY: 'secret-from-store' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'airlock-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['echo', 'greeting']);
      const answer = await client.callTool({ name: 'greeting', arguments: {} });
      const text = (answer.content as { type: string; text: string }[])[0]!.text;
      expect(JSON.parse(text)).toEqual({ greeting: 'bonjour', hasApiKey: true });
    } finally {
      await client.close();
    }
  });

  it('tells a present but unverifiable signature apart from none', async () => {
    const signed = join(work, 'signed.mcpb');
    await copyFile(bundlePath, signed);
    const key = join(work, 'key.pem');
    const cert = join(work, 'cert.pem');
    execFileSync('openssl', ['genrsa', '-traditional', '-out', key, '2048'], { stdio: 'ignore' });
    execFileSync('openssl', ['req', '-new', '-x509', '-key', key, '-out', cert, '-days', '2', '-subj', '/CN=Airlock Test Signer'], { stdio: 'ignore' });
    signMcpbFile(signed, cert, key);
    const bundle = await readMcpbBundle(signed, { serverDir: join(work, 'data', 'servers', 'signed'), home });
    // Self-signed: the block is there, nothing vouches for it. Never "none", never "verified".
    expect(bundle.signature).toBe('present-unverified');
    expect(bundle.candidate.provenance).toMatchObject({ kind: 'mcpb', signature: 'present-unverified' });
    // The signed file still unpacks (the signature block is not part of the zip).
    await unpackMcpbBundle(bundle);
    expect(await readFile(join(work, 'data', 'servers', 'signed', 'manifest.json'), 'utf8')).toContain('mcpb-echo');
  });

  it('refuses to unpack a bundle that changed after it was read', async () => {
    const copy = join(work, 'changing.mcpb');
    await copyFile(bundlePath, copy);
    const serverDir = join(work, 'data', 'servers', 'changing');
    const bundle = await readMcpbBundle(copy, { serverDir, home });
    await writeFile(copy, Buffer.concat([await readFile(copy), Buffer.from('tail')]));
    await expect(unpackMcpbBundle(bundle)).rejects.toThrow(/changed since it was reviewed/);
    await expect(stat(serverDir)).rejects.toThrow();
  });
});

describe('MCPB manifest validation', () => {
  it('gives a path and a message for each problem', async () => {
    const manifest = echoManifest() as Record<string, any>;
    delete manifest.author;
    manifest.version = 7;
    manifest.server.type = 'ruby';
    manifest.user_config.greeting.type = 'colour';
    const result = await validateMcpbManifest(manifest);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const paths = result.problems.map((problem) => problem.path);
    expect(paths).toEqual(expect.arrayContaining(['author', 'version', 'server.type', 'user_config.greeting.type']));
    for (const problem of result.problems) {
      expect(problem.message).not.toBe('Invalid input');
      expect(problem.message.length).toBeGreaterThan(3);
    }
  });

  it('requires mcp_config (the strict schemas do)', async () => {
    const manifest = echoManifest() as Record<string, any>;
    delete manifest.server.mcp_config;
    expect(await validateMcpbManifest(manifest)).toEqual({ ok: false, problems: [{ path: 'server.mcp_config', message: 'is required' }] });
  });

  it('names a missing or unknown manifest version', async () => {
    const manifest = echoManifest();
    delete manifest.manifest_version;
    expect(await validateMcpbManifest(manifest)).toEqual({ ok: false, problems: [{ path: 'manifest_version', message: expect.stringMatching(/missing; expected one of 0\.1, 0\.2, 0\.3, 0\.4/) }] });
    expect(await validateMcpbManifest({ ...echoManifest(), manifest_version: '9.9' })).toMatchObject({ ok: false, problems: [{ path: 'manifest_version' }] });
  });

  it('reports a broken manifest inside a bundle with the bundle path', async () => {
    const broken = join(work, 'broken.mcpb');
    const manifest = echoManifest() as Record<string, any>;
    manifest.server.mcp_config.args = 'not a list';
    await writeFile(broken, writeZip([{ name: 'manifest.json', data: JSON.stringify(manifest) }, { name: 'server/index.mjs', data: '' }]));
    const error = await readMcpbBundle(broken, { serverDir: join(work, 'x'), home }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpbError);
    expect((error as McpbError).problems).toEqual([{ path: 'server.mcp_config.args', message: expect.any(String) }]);
    expect((error as McpbError).message).toContain(broken);

    const notJson = join(work, 'notjson.mcpb');
    await writeFile(notJson, writeZip([{ name: 'manifest.json', data: '{ nope' }]));
    await expect(readMcpbBundle(notJson, { serverDir: join(work, 'x'), home })).rejects.toThrow(/manifest\.json: not valid JSON/);
  });

  it('refuses a sensitive setting used on the command line', async () => {
    const manifest = echoManifest() as Record<string, any>;
    manifest.server.mcp_config.args.push('--key=${user_config.api_key}');
    const path = join(work, 'argv-secret.mcpb');
    await writeFile(path, writeZip([{ name: 'manifest.json', data: JSON.stringify(manifest) }, { name: 'server/index.mjs', data: '' }]));
    const error = (await readMcpbBundle(path, { serverDir: join(work, 'y'), home }).catch((e: unknown) => e)) as McpbError;
    expect(error.problems).toEqual([{ path: 'user_config.api_key', message: expect.stringMatching(/only as a whole environment variable/) }]);
  });
});

describe('MCPB commands per platform', () => {
  it('uses the platform override and says when the bundle does not claim this platform', async () => {
    const manifest = echoManifest() as Record<string, any>;
    manifest.compatibility = { platforms: ['darwin', 'win32'] };
    manifest.server.mcp_config.platform_overrides = { linux: { args: ['${__dirname}/server/linux.mjs'] } };
    const path = join(work, 'override.mcpb');
    await writeFile(path, writeZip([{ name: 'manifest.json', data: JSON.stringify(manifest) }, { name: 'server/index.mjs', data: '' }]));
    const serverDir = join(work, 'override');
    const { candidate } = await readMcpbBundle(path, { serverDir, home, platform: 'linux' });
    expect(candidate.spec.args).toEqual([join(serverDir, 'server/linux.mjs')]);
    expect(candidate.warnings).toContain('the bundle says it supports darwin, win32, not linux');
  });

  it('runs a binary from the bundle folder', async () => {
    const manifest = echoManifest() as Record<string, any>;
    manifest.server = { type: 'binary', entry_point: 'bin/server', mcp_config: { command: '${__dirname}/bin/server' } };
    delete manifest.user_config;
    const path = join(work, 'binary.mcpb');
    await writeFile(path, writeZip([{ name: 'manifest.json', data: JSON.stringify(manifest) }, { name: 'bin/server', data: '#!/bin/sh\n', unixMode: 0o100755 }]));
    const serverDir = join(work, 'binary');
    const bundle = await readMcpbBundle(path, { serverDir, home });
    expect(bundle.candidate.spec).toEqual({ command: join(serverDir, 'bin/server'), args: [], env: {}, cwd: serverDir });
    await unpackMcpbBundle(bundle);
    expect((await stat(join(serverDir, 'bin/server'))).mode & 0o111).not.toBe(0);
  });
});

describe('zip slip and other hostile archives', () => {
  const manifest = JSON.stringify(echoManifest());
  it.each([
    ['a parent-directory entry', '../evil.js', /climbs out/],
    ['a nested parent-directory entry', 'server/../../evil.js', /climbs out/],
    ['an absolute entry', '/tmp/airlock-evil.js', /absolute path/],
    ['a drive-letter entry', 'C:/evil.js', /absolute path/],
    ['a backslash entry', '..\\evil.js', /backslashes/],
  ])('refuses %s and writes nothing', async (_label, name, reason) => {
    const path = join(work, `slip-${Math.random().toString(36).slice(2)}.mcpb`);
    await writeFile(path, writeZip([{ name: 'manifest.json', data: manifest }, { name: 'server/index.mjs', data: '' }, { name, data: 'owned' }]));
    const serverDir = join(work, 'slip', 'server');
    // Reading lists the entries, so the refusal comes before any disclosure.
    const error = (await readMcpbBundle(path, { serverDir, home }).catch((e: unknown) => e)) as McpbError;
    expect(error).toBeInstanceOf(McpbError);
    expect(error.problems[0]!.message).toMatch(reason);
    await expect(stat(join(work, 'slip'))).rejects.toThrow();
    await expect(stat(join(work, 'evil.js'))).rejects.toThrow();
  });

  it('refuses symbolic links', async () => {
    const path = join(work, 'link.mcpb');
    await writeFile(path, writeZip([{ name: 'manifest.json', data: manifest }, { name: 'server/index.mjs', data: '/etc/passwd', unixMode: 0o120777 }]));
    await expect(readMcpbBundle(path, { serverDir: join(work, 'link'), home })).rejects.toThrow(/symbolic link/);
  });

  it('refuses a file that is not a zip', async () => {
    const path = join(work, 'plain.mcpb');
    await writeFile(path, 'hello');
    await expect(readMcpbBundle(path, { serverDir: join(work, 'plain'), home })).rejects.toThrow(/bundle: not a zip archive/);
  });
});

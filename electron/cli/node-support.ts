import semver from 'semver';
import packageJson from '../../package.json';

/** One part of Airlock, the Node versions it needs (a semver range from package.json), and whether this Node is one. */
export interface NodeNeed {
  /** The range, exactly as package.json states it. */
  range: string;
  enough: boolean;
}

/** The Node this command runs on, against what the command line and the desktop app each need. */
export interface NodeSupport {
  version: string;
  /** The command line, the tests and the build (package.json `engines.node`). */
  commandLine: NodeNeed;
  /** The desktop app run from a clone (`npm start`): Electron 45 and its tooling (package.json `desktopApp.node`). */
  desktopApp: NodeNeed;
}

/**
 * What package.json says each part needs, checked against `version` (this
 * process's Node by default). The ranges live in package.json only, so npm's
 * engine check, `airlock doctor` and the README's test read the same words.
 */
export function nodeSupport(version: string = process.version): NodeSupport {
  const need = (range: string): NodeNeed => ({ range, enough: semver.satisfies(version, range) });
  return {
    version: version.startsWith('v') ? version : `v${version}`,
    commandLine: need(packageJson.engines.node),
    desktopApp: need(packageJson.desktopApp.node),
  };
}

/** `airlock doctor`'s lines about Node: which one runs this command, and what it is enough for. */
export function nodeSupportLines(support: NodeSupport): string[] {
  const { commandLine, desktopApp } = support;
  return [
    `Node: ${support.version} runs this command.`,
    commandLine.enough
      ? `  Enough for the command line and the tests (Node ${commandLine.range}).`
      : `  Not one the command line and the tests support (they need Node ${commandLine.range}): install one of those.`,
    desktopApp.enough
      ? `  Enough for the desktop app (Node ${desktopApp.range}).`
      : `  Not enough for the desktop app (\`npm start\` needs Node ${desktopApp.range}); the command line works without it.`,
  ];
}

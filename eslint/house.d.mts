/** Types of the house's table (eslint/house.mjs), for the tests that hold the linter and docs/architecture.md to it. */

/** A floor: a top-level folder, what it holds, and what it may import. */
export interface Floor {
  name: string;
  path: string;
  holds: string;
  may: string[];
  node: boolean;
  electron: boolean;
  packages: string[] | true;
}

/** A capability folder under electron/core/, and what it holds. */
export interface Room {
  path: string;
  holds: string;
}

/** A rule inside the core: what a folder may not import, and why. */
export interface CoreRule {
  from: string;
  mayNot: string[];
  node?: boolean;
  why: string;
}

export declare const floors: Floor[];
export declare const rooms: Room[];
export declare const coreFaces: { topLevel: string; folders: string[]; index: string };
export declare const coreRules: CoreRule[];

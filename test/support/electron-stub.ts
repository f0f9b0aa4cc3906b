// Stands in for the `electron` module under vitest, where the real one cannot
// load. Shell code under test receives narrow interfaces instead; touching
// anything here means a test reached for Electron itself.
const fail = (what: string) => () => {
  throw new Error(`electron.${what} is not available under vitest; pass a narrow interface instead`);
};
export const app = new Proxy({}, { get: (_t, key) => fail(`app.${String(key)}`)() });
export const ipcMain = new Proxy({}, { get: (_t, key) => fail(`ipcMain.${String(key)}`)() });
export default {};

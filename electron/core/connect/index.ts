export {
  AIRLOCK_ENTRY_NAME,
  airlockEntry,
  appConfigPath,
  connectApp,
  ConnectError,
  previewConnect,
  serversKey,
  undoConnect,
  type AppServerEntry,
  type ConnectApp,
  type ConnectEnvironment,
  type ConnectOptions,
  type ConnectPreview,
  type ConnectResult,
  type GatewayCommand,
  type UndoResult,
} from './connect-app';
export { scanJsonc, type JsoncMember, type JsoncNode } from './jsonc-edit';

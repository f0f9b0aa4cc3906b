/**
 * A tool's screen, loaded when one is first shown: the MCP Apps host bridge
 * (the SDK's AppBridge and its protocol) is its own chunk, so windows that
 * never show a screen never load it.
 */
import { lazy, Suspense, type ComponentProps } from 'react';

const Screen = lazy(() => import('./tool-screen').then((module) => ({ default: module.ToolScreen })));

export type { ScreenToolResult } from './tool-screen';

export function ToolScreen(props: ComponentProps<typeof Screen>) {
  return (
    <Suspense fallback={<p className="muted small screen-note">Opening the server’s screen…</p>}>
      <Screen {...props} />
    </Suspense>
  );
}

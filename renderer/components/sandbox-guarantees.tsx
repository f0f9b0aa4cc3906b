/**
 * What this computer's sandbox guarantees, row by row, in plain words —
 * enforced, weaker (and how), or not enforced (and why) — as the core's
 * platform backend states it. On a server's Permissions page and in
 * Settings; on macOS and Windows it also says these are not yet verified
 * on a real machine. The install disclosure shows only the rows weaker
 * than Linux (`PlatformWeaker`).
 */
import { guaranteesFor } from '../../shared/plain';
import type { GuaranteeView, SandboxGuaranteesView } from '../../shared/sandbox-views';
import { useQuery } from '../api';
import { Badge } from './badges';

const STATE: Record<GuaranteeView['state'], { text: string; tone: 'ok' | 'warn' | 'danger' }> = {
  enforced: { text: 'Enforced', tone: 'ok' },
  weaker: { text: 'Weaker', tone: 'warn' },
  'not enforced': { text: 'Not enforced', tone: 'danger' },
};

const PLATFORM_NAME: Record<string, string> = { linux: 'Linux', darwin: 'macOS', win32: 'Windows' };

/** The rows as a list of facts. */
export function GuaranteeRows({ rows, testId }: { rows: readonly GuaranteeView[]; testId?: string }) {
  return (
    <dl className="facts" data-testid={testId}>
      {rows.map((row) => (
        <div key={row.row} className="facts-row" data-testid={`guarantee-${row.row}`} data-state={row.state}>
          <dt>{row.label}</dt>
          <dd>
            <Badge tone={STATE[row.state].tone}>{STATE[row.state].text}</Badge> {row.how}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The whole table for this computer, fetched from the core. */
export function SandboxGuarantees() {
  const [view] = useQuery('sandbox.guarantees', {}, 'sandbox.didChange');
  if (view.status === 'loading') return <p className="muted">Checking what the sandbox guarantees here…</p>;
  if (view.status === 'error') return <p role="alert">{view.message}</p>;
  return <GuaranteesFor view={view.value} />;
}

function GuaranteesFor({ view }: { view: SandboxGuaranteesView }) {
  const platform = PLATFORM_NAME[view.platform] ?? view.platform;
  return (
    <section aria-labelledby="guarantees-title" data-testid="sandbox-guarantees">
      <h2 id="guarantees-title">What the sandbox guarantees on {platform}</h2>
      {view.guarantees.length === 0 ? (
        <p className="notice notice-error">Airlock has no sandbox for {platform}: nothing is enforced around a server here.</p>
      ) : (
        <>
          <p className="purpose">
            {view.mechanism}. Each row says whether it holds here as on every platform Airlock knows, holds less (and how), or does not hold.
          </p>
          {view.unverified && (
            <p className="notice notice-warning small" role="note" data-testid="guarantees-unverified">
              Not yet verified on a real {platform} machine by Airlock’s own tests: this is what the code is built to do there.
            </p>
          )}
          <GuaranteeRows rows={view.guarantees} />
        </>
      )}
    </section>
  );
}

/**
 * For the install disclosure: where this computer's sandbox holds less than
 * Linux's, the rows that matter to this server with the grants now chosen
 * (nothing on Linux); it follows the person's edits to the grants.
 */
export function PlatformWeaker({ rows: all, profile }: { rows: readonly GuaranteeView[] | undefined; profile: { filesystem: { write: readonly string[] } } }) {
  const rows = all ? guaranteesFor(all, profile) : [];
  if (rows.length === 0) return null;
  return (
    <div className="notice notice-warning" data-testid="platform-weaker">
      <p>
        <strong>On this computer the sandbox holds less than on Linux.</strong> For this server that means:
      </p>
      <GuaranteeRows rows={rows} />
      <p className="small">Decide knowing this; you can stop or remove the server at any time.</p>
    </div>
  );
}

/** Small labels that say a server's state at a glance; colour is never the only signal. */
import type { ServerSummary } from '../../shared/views';

const STATE_LABEL: Record<ServerSummary['state'], { text: string; tone: string }> = {
  ready: { text: 'Running', tone: 'ok' },
  starting: { text: 'Starting', tone: 'neutral' },
  stopped: { text: 'Stopped', tone: 'neutral' },
  crashed: { text: 'Crashed', tone: 'danger' },
  backoff: { text: 'Restarting after a crash', tone: 'warn' },
  quarantined: { text: 'Quarantined', tone: 'danger' },
};

export function Badge({ tone, children, testId }: { tone: 'ok' | 'warn' | 'danger' | 'neutral' | string; children: React.ReactNode; testId?: string }) {
  return (
    <span className={`badge badge-${tone}`} data-testid={testId}>
      {children}
    </span>
  );
}

export function TrustBadge({ trusted }: { trusted: boolean }) {
  return trusted ? <Badge tone="ok">Trusted</Badge> : <Badge tone="neutral">Not trusted</Badge>;
}

export function SandboxBadge({ sandboxed }: { sandboxed: boolean }) {
  return sandboxed ? <Badge tone="ok">Sandboxed</Badge> : <Badge tone="danger">NOT sandboxed</Badge>;
}

/** Every badge the Servers list and the detail page show for a server. */
export function ServerBadges({
  server,
}: {
  server: Pick<ServerSummary, 'state' | 'trusted' | 'sandboxed' | 'network' | 'pendingChanges' | 'newTools' | 'codeChanged' | 'claimsToReview' | 'enabled' | 'blockedByOrganisation'>;
}) {
  const state = STATE_LABEL[server.state];
  return (
    <span className="badges" data-testid="server-badges">
      {server.blockedByOrganisation && (
        <Badge tone="danger" testId="organisation-blocked-badge">
          Blocked by your organisation
        </Badge>
      )}
      <Badge tone={state.tone}>{state.text}</Badge>
      <TrustBadge trusted={server.trusted} />
      <SandboxBadge sandboxed={server.sandboxed} />
      {server.network ? <Badge tone="warn">Network: yes</Badge> : <Badge tone="neutral">Network: no</Badge>}
      {server.pendingChanges > 0 && (
        <Badge tone="warn">
          {server.pendingChanges} pending change{server.pendingChanges === 1 ? '' : 's'}
        </Badge>
      )}
      {server.codeChanged && <Badge tone="danger">Code changed since approved</Badge>}
      {server.claimsToReview > 0 && (
        <Badge tone="danger" testId="claims-badge">
          {server.claimsToReview} tool{server.claimsToReview === 1 ? '' : 's'} did what {server.claimsToReview === 1 ? 'its claims say it does' : 'their claims say they do'} not
        </Badge>
      )}
      {server.newTools > 0 && (
        <Badge tone="warn">
          {server.newTools} new tool{server.newTools === 1 ? '' : 's'} to review
        </Badge>
      )}
    </span>
  );
}

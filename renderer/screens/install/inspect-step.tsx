/** Install step 3: what the server offered when it ran once in the locked sandbox, in sections — tools first. */
import { useState } from 'react';
import type { ProbeReport } from '../../../shared/views';
import { Badge } from '../../components/badges';
import { InertText } from '../../components/inert-text';
import { Tabs } from '../../components/tabs';
import { ToolCard } from '../../components/tool-reading';
import { SCREEN_DOMAIN_KINDS, SCREEN_DOMAIN_WORDS, SCREEN_PERMISSION_WORDS } from '../../../shared/plain';

export function ProbeView({ probe }: { probe: ProbeReport }) {
  const [tab, setTab] = useState('tools');
  const asks = probe.tools.filter((tool) => tool.preview.verdict === 'ask').length;
  const tabs = [
    {
      id: 'tools',
      label: 'Tools',
      badge: probe.tools.length,
      render: () => (
        <>
          <p className="muted small">
            “The server says” lists its own claims about each tool; they are hints. “Airlock’s reading” is what Airlock assumes, and the label is what happens when
            something calls the tool with the permissions chosen so far{asks ? ` (${asks} of ${probe.tools.length} ask first)` : ''}.
          </p>
          {probe.tools.length === 0 ? <p className="muted">It offers no tools.</p> : probe.tools.map((tool) => <ToolCard key={tool.name} tool={tool} />)}
        </>
      ),
    },
    ...(probe.screens?.length
      ? [
          {
            id: 'screens',
            label: 'Screens',
            badge: probe.screens.length,
            render: () => <ProbeScreens screens={probe.screens!} />,
          },
        ]
      : []),
    {
      id: 'about',
      label: 'About it',
      attention: probe.warnings.length > 0,
      render: () => (
        <>
          <dl className="facts">
            <dt>It calls itself</dt>
            <dd>
              <InertText text={probe.serverInfo.title ?? probe.serverInfo.name} /> <span className="muted">(<InertText text={`${probe.serverInfo.name} ${probe.serverInfo.version}`} />)</span>
            </dd>
          </dl>
          {probe.instructions ? (
            <>
              <h3>Its instructions for AI apps</h3>
              <p className="muted small">Shown as the server wrote them. Airlock never follows them.</p>
              <InertText text={probe.instructions} quoted fold={800} />
            </>
          ) : (
            <p className="muted">It gives AI apps no instructions.</p>
          )}
        </>
      ),
    },
    {
      id: 'more',
      label: 'Prompts and resources',
      badge: probe.prompts.length + probe.resources.length,
      render: () => (
        <>
          <h3>
            Prompts <span className="muted">({probe.prompts.length})</span>
          </h3>
          {probe.prompts.length === 0 ? (
            <p className="muted">None.</p>
          ) : (
            <ul>
              {probe.prompts.map((prompt, i) => (
                <li key={i}>
                  <code><InertText text={prompt.name} /></code>
                  {prompt.description && <InertText text={prompt.description} quoted fold={300} />}
                </li>
              ))}
            </ul>
          )}
          <h3>
            Resources <span className="muted">({probe.resources.length})</span>
          </h3>
          {probe.resources.length === 0 ? (
            <p className="muted">None.</p>
          ) : (
            <ul>
              {probe.resources.map((resource, i) => (
                <li key={i}>
                  <code><InertText text={resource.uri} /></code> {resource.name && <InertText text={resource.name} />}
                </li>
              ))}
            </ul>
          )}
        </>
      ),
    },
    {
      id: 'log',
      label: 'Its log',
      badge: probe.log.length,
      render: () =>
        probe.log.length > 0 ? (
          <>
            <p className="muted small">What it wrote while inspected.</p>
            <InertText text={probe.log.join('\n')} quoted fold={4000} className="log" />
          </>
        ) : (
          <p className="muted">It wrote nothing.</p>
        ),
    },
  ];
  return (
    <div className="probe" data-testid="probe-report">
      <p className="lead">
        <InertText text={probe.serverInfo.title ?? probe.serverInfo.name} /> offers {probe.tools.length} tool{probe.tools.length === 1 ? '' : 's'}
        {probe.prompts.length ? `, ${probe.prompts.length} prompt${probe.prompts.length === 1 ? '' : 's'}` : ''}
        {probe.resources.length ? `, ${probe.resources.length} resource${probe.resources.length === 1 ? '' : 's'}` : ''}.
      </p>
      {probe.warnings.length > 0 && (
        <ul className="warnings">
          {probe.warnings.map((warning, i) => (
            <li key={i}>
              <Badge tone="warn">Warning</Badge> <InertText text={warning} />
            </li>
          ))}
        </ul>
      )}
      <Tabs tabs={tabs} selected={tab} onSelect={setTab} label="What the inspection found" testId="probe-tabs" />
    </div>
  );
}

/** The screens its tools name (MCP Apps), as read at the inspection: what each asks for, nothing allowed yet. */
function ProbeScreens({ screens }: { screens: NonNullable<ProbeReport['screens']> }) {
  return (
    <div data-testid="probe-screens">
      <p className="muted small">
        Pages the server wrote, shown with its tools’ results in Airlock’s window — on an origin of their own, in a sandbox, with no access to Airlock. What each asks for is the server’s claim: nothing is allowed unless you allow it in the last step (or later, on its Screens section). A screen that changes after you add the server is not shown again until you approve it.
      </p>
      {screens.map((screen) => (
        <section key={screen.uri} className="panel screen-entry" aria-label={`Screen ${screen.uri}`}>
          <h3>
            <code>
              <InertText text={screen.uri} />
            </code>
          </h3>
          <p className="small">
            Shown for <InertText text={screen.tools.join(', ')} />
            {screen.htmlSha256 && <span className="muted"> · page sha256 {screen.htmlSha256.slice(0, 16)}…{screen.size !== undefined ? `, ${screen.size.toLocaleString('en')} bytes` : ''}</span>}
          </p>
          {screen.problem && (
            <p className="notice notice-error small">
              It could not be read: <InertText text={screen.problem} />
            </p>
          )}
          <ul className="screen-asks">
            {SCREEN_DOMAIN_KINDS.flatMap((kind) =>
              screen.declared[kind].map((origin) => (
                <li key={`${kind} ${origin}`}>
                  It asks to {SCREEN_DOMAIN_WORDS[kind]} <code>{origin}</code>
                </li>
              )),
            )}
            {screen.permissions.asked.map((permission) => (
              <li key={permission}>It asks for {SCREEN_PERMISSION_WORDS[permission]}</li>
            ))}
            {!screen.problem && SCREEN_DOMAIN_KINDS.every((kind) => screen.declared[kind].length === 0) && screen.permissions.asked.length === 0 && <li>It asks for no addresses and no permissions: it cannot reach the network.</li>}
          </ul>
          {screen.notes.map((note) => (
            <p key={note} className="small muted">
              <InertText text={note} />
            </p>
          ))}
        </section>
      ))}
    </div>
  );
}

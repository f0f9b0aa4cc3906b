/** The Servers screen. The install flow and server list arrive with the install issue. */
export function ServersScreen() {
  return (
    <section aria-labelledby="servers-title">
      <h1 id="servers-title">Servers</h1>
      <div className="empty">
        <p className="lead">No servers yet.</p>
        <p>
          Every MCP server Airlock runs lives in its own sandbox: no network, no writes outside its own
          temporary folder and no secrets unless you grant them.
        </p>
        <p>
          Add one from a terminal with <code>airlock add NAME --npm PACKAGE</code>.
        </p>
      </div>
    </section>
  );
}

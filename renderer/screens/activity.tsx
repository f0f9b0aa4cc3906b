/** The Activity screen: every call and decision, from the audit log (arrives with the policy issue). */
export function ActivityScreen() {
  return (
    <section aria-labelledby="activity-title">
      <h1 id="activity-title">Activity</h1>
      <div className="empty">
        <p className="lead">No calls yet.</p>
        <p>Every tool call, who asked for it, what Airlock decided and what happened will be listed here.</p>
      </div>
    </section>
  );
}

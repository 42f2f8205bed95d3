// One row of the checks table: what a check expected, what its run observed, and whether the
// denied step left source, version and backups unchanged. Its own module so that the check
// runner and the positive checks share the type without importing each other.
export interface CheckRow {
  readonly id: string;
  readonly description: string;
  readonly expected: string;
  readonly observed: string | null;
  /** Source bytes, recorded version/digest and backups unchanged by the denied step ("n/a": no workspace). */
  readonly unchanged: "yes" | "no" | "n/a";
  readonly passed: boolean;
  readonly problems: readonly string[];
  readonly runDirectory: string | null;
  /** The check run's own stop reason (final.json), or null where no run directory was created. */
  readonly stopReason: string | null;
}

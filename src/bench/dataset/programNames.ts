// The names --programs takes, checked against the data set: which named programs it lacks, and
// the refusal that says which names each typo meant and where the whole list is. Read at once
// after the data set is loaded (benchEnvironment.ts), so a typo costs no interpreter probe and no
// sandbox self-test.
import { join } from "node:path";

/** Programs named by --programs that the data set does not hold, in the order given. */
export function unknownPrograms(
  programs: readonly string[] | undefined,
  dataset: { readonly programs: readonly { readonly name: string }[] },
): string[] {
  return programs?.filter((p) => !dataset.programs.some((q) => q.name === p)) ?? [];
}

/** Levenshtein distance (insert, delete, substitute), for suggesting the name a typo meant. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The data set's names nearest to a typo: at most 3, within a third of the name's length (at least 2 edits). */
export function nearestPrograms(name: string, names: readonly string[]): string[] {
  const limit = Math.max(2, Math.floor(name.length / 3));
  return names
    .map((candidate) => ({ candidate, distance: editDistance(name, candidate) }))
    .filter((c) => c.distance <= limit)
    .sort((x, y) => x.distance - y.distance || x.candidate.localeCompare(y.candidate))
    .slice(0, 3)
    .map((c) => c.candidate);
}

/**
 * The refusal of --programs naming programs the data set lacks (verify-dataset and run alike):
 * each unknown name with the nearest names, and where the whole list is.
 */
export function unknownProgramsMessage(
  unknown: readonly string[],
  dataset: { readonly root: string; readonly programs: readonly { readonly name: string }[] },
): string {
  const names = dataset.programs.map((p) => p.name);
  const each = unknown.map((name) => {
    const near = nearestPrograms(name, names);
    return near.length === 0 ? name : `${name} (did you mean ${near.join(" or ")}?)`;
  });
  return `unknown programs: ${each.join(", ")}; the data set ${dataset.root} has ${names.length} programs, one per file in ${join(dataset.root, "python_programs")} (ls ${join(dataset.root, "python_programs")} lists them; --programs takes the names without .py)`;
}

// One canonical JSON text per value (object keys sorted by code point), so two records are
// compared as data, whatever order their writer put the keys in. Callers pass values that came
// through src/core/boundedJson or were built by the project, so the stringify's recursion is bounded.
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item: unknown) =>
      typeof item === "object" && item !== null && !Array.isArray(item)
        ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : item,
    ) ?? "undefined"
  );
}

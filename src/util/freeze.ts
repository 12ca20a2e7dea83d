// Deep freezing, for data that is shared and must not change once made (the conversation history, the tool
// definitions): model/request-body.ts keeps the JSON of frozen objects.

/** Freezes `v` and everything reachable from it; returns `v`. */
export function deepFreeze<T>(v: T): T {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return v;
  Object.freeze(v);
  for (const x of Object.values(v)) deepFreeze(x);
  return v;
}

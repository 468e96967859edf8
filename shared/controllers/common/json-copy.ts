// A deep copy of JSON data, as every planner copies the objects it observed before changing them. Not
// structuredClone: its copies come from the host realm, which breaks deep equality against objects of another realm
// (as under Jest's module VM). Dates become RFC 3339 strings, as the apiserver would send them.
export function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

// `{ ...base, ...extra }` for objects built per event and per correction, without the hidden
// classes a spread leaves behind on Node 20 (V8 11): an object a spread creates gets a new
// hidden class for every property added to it afterwards, each time, never shared (`node
// --log-maps` logs one per added property and object). They, and the property-load handlers
// made for each, live in the old generation until a full collection.
// Object.assign into a new literal gives the same keys in the same order (the later value
// winning) through the shared ones. For objects of the sidecar's own only: an application's
// document may hold a field named "__proto__", which a spread copies and Object.assign would
// take for the prototype.
export function extended<Base extends object, Extra extends object>(base: Base, extra: Extra): Base & Extra {
  return Object.assign({}, base, extra);
}

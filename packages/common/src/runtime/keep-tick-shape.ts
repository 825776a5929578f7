import { createHook } from 'node:async_hooks'

/**
 * Imported for its effect, first of all modules in each service's entry point: keeps one of Node's
 * `process.nextTick` tick objects alive for the life of the process.
 *
 * Node builds every tick object as `{ [async_id_symbol]: …, [trigger_async_id_symbol]: …, callback, args }`.
 * After a computed key, V8 defines each property of a literal through an inline cache that remembers one
 * shape (hidden class) and, on seeing any other, turns megamorphic for good; the shape it remembers is held
 * weakly. A full collection that runs while no tick object is alive (land compacts its heap after building
 * its index; any process idles) lets those shapes die, the next tick object gets fresh ones, and three of
 * nextTick's four property definitions turn megamorphic: from then on each one goes through V8's runtime
 * instead of optimised code, several tick objects a request (stream writes, socket ends); what that costs is
 * measured in PERFORMANCE.md ("Runtime behaviour"). Holding one tick object keeps its shape, and the chain
 * of shapes that leads to it, alive. It must run before the first full collection of the process: later,
 * the caches may already be lost.
 */
const kept: object[] = []
const hook = createHook({
  init(_asyncId, type, _triggerAsyncId, resource) {
    if (type === 'TickObject') kept.push(resource)
  },
}).enable()
// With and without arguments: `args` holds undefined or an array, both in the same shape.
process.nextTick(() => {})
process.nextTick(() => {}, 0)
hook.disable()

// expectEvents: the observed command events of a client, in order, against the expected ones;
// extra observed events fail unless ignoreExtraEvents.
import type { CommandStartedEvent, CommandSucceededEvent, Document } from "mongodb";
import type { RecordedCommandEvent } from "./command-events.js";
import type { EntityMap } from "./entity-map.js";
import { findDifference } from "./matcher.js";
import { UnsupportedFeature } from "./outcomes.js";
import type { ExpectedEventsForClient } from "./test-file-types.js";

export function expectedEventsDifference(expectations: ExpectedEventsForClient[], entities: EntityMap) {
  for (const expectation of expectations) {
    if ((expectation.eventType ?? "command") !== "command") {
      throw new UnsupportedFeature(`expectEvents of type ${expectation.eventType}`);
    }
    const actual = entities.get(expectation.client, "client").events.events;
    const difference = clientEventsDifference(expectation, actual, entities);
    if (difference) return `${expectation.client} events: ${difference}`;
  }
  return undefined;
}

function clientEventsDifference(
  expectation: ExpectedEventsForClient,
  actual: RecordedCommandEvent[],
  entities: EntityMap,
): string | undefined {
  const expected = expectation.events;
  const countMismatch = expectation.ignoreExtraEvents
    ? actual.length < expected.length
    : actual.length !== expected.length;
  for (let index = 0; index < Math.min(expected.length, actual.length); index++) {
    const difference = eventDifference(expected[index]!, actual[index]!, entities, `events[${index}]`);
    if (difference) return `${difference}${countMismatch ? `; observed ${summarize(actual)}` : ""}`;
  }
  if (countMismatch)
    return `expected ${expected.length} events, observed ${actual.length}: ${summarize(actual)}`;
  return undefined;
}

function summarize(events: RecordedCommandEvent[]): string {
  return events
    .map((entry) => `${entry.event.commandName}:${entry.type.replace(/^command|Event$/g, "")}`)
    .join(", ");
}

function eventDifference(
  expected: Document,
  actual: RecordedCommandEvent,
  entities: EntityMap,
  path: string,
): string | undefined {
  const [type] = Object.keys(expected);
  if (!type) return `at ${path}: empty event expectation`;
  if (!["commandStartedEvent", "commandSucceededEvent", "commandFailedEvent"].includes(type)) {
    throw new UnsupportedFeature(`expected event ${type}`);
  }
  const spec = expected[type] as Document;
  if (actual.type !== type)
    return `at ${path}: expected ${type}, observed ${actual.type} of ${actual.event.commandName}`;
  const event = actual.event as CommandStartedEvent & CommandSucceededEvent & { databaseName?: string };
  if (spec.commandName !== undefined && spec.commandName !== event.commandName) {
    return `at ${path}.commandName: expected ${spec.commandName}, observed ${event.commandName}`;
  }
  if (spec.databaseName !== undefined && spec.databaseName !== event.databaseName) {
    return `at ${path}.databaseName: expected ${spec.databaseName}, observed ${event.databaseName}`;
  }
  if (spec.command !== undefined) {
    const difference = findDifference(spec.command, event.command, {
      root: true,
      entities,
      path: `${path}.command`,
    });
    if (difference) return difference;
  }
  if (spec.reply !== undefined) {
    const difference = findDifference(spec.reply, event.reply, {
      root: true,
      entities,
      path: `${path}.reply`,
    });
    if (difference) return difference;
  }
  if (spec.hasServiceId !== undefined && spec.hasServiceId !== (event.serviceId !== undefined)) {
    return `at ${path}.hasServiceId: expected ${String(spec.hasServiceId)}`;
  }
  if (
    spec.hasServerConnectionId !== undefined &&
    spec.hasServerConnectionId !== (event.serverConnectionId != null)
  ) {
    return `at ${path}.hasServerConnectionId: expected ${String(spec.hasServerConnectionId)}`;
  }
  return undefined;
}

// The per-test entity map: unique names, typed look-ups that fail loudly, and an owner for every
// driver object so the end of a test closes what it opened.
import type { ChangeStream, ClientSession, Collection, Db, Document, MongoClient } from "mongodb";
import type { CommandEventRecorder } from "./command-events.js";
import type { MatchEntities } from "./matcher.js";

export type Entity =
  | { kind: "client"; client: MongoClient; events: CommandEventRecorder }
  | { kind: "database"; database: Db }
  | { kind: "collection"; collection: Collection }
  | { kind: "session"; session: ClientSession; lsid: Document; clientName: string }
  | { kind: "changeStream"; stream: ChangeStream }
  | { kind: "value"; value: unknown };

type EntityOf<K extends Entity["kind"]> = Extract<Entity, { kind: K }>;

export class EntityMap implements MatchEntities {
  private readonly entities = new Map<string, Entity>();

  add(name: string, entity: Entity): void {
    if (this.entities.has(name)) throw new Error(`entity ${name} is already defined`);
    this.entities.set(name, entity);
  }

  find(name: string): Entity {
    const entity = this.entities.get(name);
    if (!entity) throw new Error(`entity ${name} is not defined`);
    return entity;
  }

  get<K extends Entity["kind"]>(name: string, kind: K): EntityOf<K> {
    const entity = this.find(name);
    if (entity.kind !== kind) throw new Error(`entity ${name} is a ${entity.kind}, not a ${kind}`);
    return entity as EntityOf<K>;
  }

  all(): [string, Entity][] {
    return [...this.entities.entries()];
  }

  entityValue(name: string): unknown {
    return this.get(name, "value").value;
  }

  sessionLsid(name: string): unknown {
    return this.get(name, "session").lsid;
  }

  /**
   * Ends sessions, closes change streams, then clients (format spec, "Executing a Test"); errors
   * while closing are irrelevant to the test's outcome, which is already decided.
   */
  async close(): Promise<void> {
    const ofKind = (kind: Entity["kind"]) =>
      [...this.entities.values()].filter((entity) => entity.kind === kind);
    for (const entity of ofKind("changeStream"))
      await (entity as EntityOf<"changeStream">).stream.close().catch(() => {});
    for (const entity of ofKind("session"))
      await (entity as EntityOf<"session">).session.endSession().catch(() => {});
    for (const entity of ofKind("client"))
      await (entity as EntityOf<"client">).client.close(true).catch(() => {});
    this.entities.clear();
  }
}

// Command monitoring for one client entity: which events it keeps (observeEvents minus the
// ignored and sensitive commands) and a stop switch, since listeners end with the operations.
import type {
  CommandFailedEvent,
  CommandStartedEvent,
  CommandSucceededEvent,
  Document,
  MongoClient,
} from "mongodb";
import { UnsupportedFeature } from "./outcomes.js";

export type CommandEventType = "commandStartedEvent" | "commandSucceededEvent" | "commandFailedEvent";

export interface RecordedCommandEvent {
  type: CommandEventType;
  event: CommandStartedEvent | CommandSucceededEvent | CommandFailedEvent;
}

const driverEventNames: Record<CommandEventType, string> = {
  commandStartedEvent: "commandStarted",
  commandSucceededEvent: "commandSucceeded",
  commandFailedEvent: "commandFailed",
};

// Command Logging and Monitoring spec, "Security": these carry credentials and are never observed.
const sensitiveCommands = new Set([
  "authenticate",
  "saslstart",
  "saslcontinue",
  "getnonce",
  "createuser",
  "updateuser",
  "copydbgetnonce",
  "copydbsaslstart",
  "copydb",
]);

export class CommandEventRecorder {
  readonly events: RecordedCommandEvent[] = [];
  private recording = true;
  private readonly ignored: Set<string>;
  /** Started commands that were ignored, so their succeeded/failed events are ignored too. */
  private readonly ignoredRequests = new Set<number>();

  constructor(client: MongoClient, observe: string[], ignoreCommands: string[]) {
    // configureFailPoint from the failPoint operation is never part of the observed events.
    this.ignored = new Set([...ignoreCommands, "configureFailPoint"].map((name) => name.toLowerCase()));
    for (const type of observe) {
      if (!(type in driverEventNames)) throw new UnsupportedFeature(`observeEvents ${type}`);
      const eventType = type as CommandEventType;
      client.on(driverEventNames[eventType] as "commandStarted", (event: CommandStartedEvent) =>
        this.record(eventType, event),
      );
    }
  }

  stop(): void {
    this.recording = false;
  }

  /** The command documents of the started events seen so far, for the lsid assertions. */
  startedCommands(): Document[] {
    return this.events
      .filter((entry) => entry.type === "commandStartedEvent")
      .map((entry) => {
        return (entry.event as CommandStartedEvent).command;
      });
  }

  private record(
    type: CommandEventType,
    event: CommandStartedEvent | CommandSucceededEvent | CommandFailedEvent,
  ) {
    if (!this.recording) return;
    if (type === "commandStartedEvent" && this.isIgnored(event as CommandStartedEvent)) {
      this.ignoredRequests.add(event.requestId);
      return;
    }
    if (this.ignoredRequests.has(event.requestId) || this.ignored.has(event.commandName.toLowerCase()))
      return;
    if (sensitiveCommands.has(event.commandName.toLowerCase())) return;
    this.events.push({ type, event });
  }

  private isIgnored(event: CommandStartedEvent): boolean {
    const name = event.commandName.toLowerCase();
    if (this.ignored.has(name) || sensitiveCommands.has(name)) return true;
    // hello is sensitive when it carries speculative authentication; the driver then redacts it to {}.
    const isHello = name === "hello" || name === "ismaster";
    return isHello && (Object.keys(event.command).length === 0 || "speculativeAuthenticate" in event.command);
  }
}

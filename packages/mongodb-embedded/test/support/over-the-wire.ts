// Values as the server sees what the driver sends: it decodes with promoteValues: false, so
// numbers arrive as Int32 and Double, not as plain numbers.
import { deserialize, serialize } from "bson";

export function overTheWire<T>(value: T): T {
  return deserialize(serialize({ value }), { promoteValues: false }).value as T;
}

// serverStatus's metrics.commands: how many times each command ran and how many of those
// failed, as mongod counts them. A client can tell from them how many round trips some work
// took, whatever the clock says. A command is listed from its first run on; unknown names
// are counted together under "<UNKNOWN>", as mongod does.
import { Long, type Document } from "bson";

const UNKNOWN = "<UNKNOWN>";

export class CommandCounts {
  private readonly counts = new Map<string, { total: number; failed: number }>();
  private unknown = 0;

  record(name: string, known: boolean, failed: boolean): void {
    if (!known) {
      this.unknown += 1;
      return;
    }
    let count = this.counts.get(name);
    if (!count) this.counts.set(name, (count = { total: 0, failed: 0 }));
    count.total += 1;
    if (failed) count.failed += 1;
  }

  /** As serverStatus reports them: NumberLongs, commands in name order. */
  toDocument(): Document {
    const names = [...this.counts.keys()].sort();
    return {
      [UNKNOWN]: Long.fromNumber(this.unknown),
      ...Object.fromEntries(
        names.map((name) => {
          const { total, failed } = this.counts.get(name)!;
          return [name, { failed: Long.fromNumber(failed), total: Long.fromNumber(total) }];
        }),
      ),
    };
  }
}

// The known-failures list: tests that fail for a documented reason (mostly server differences)
// and do not fail the run. Entries name a file by its path under the spec-tests folder; any run
// file whose path ends with that name matches, so the list works whatever folder is passed.
import { readFileSync } from "node:fs";
import { z } from "zod";

const knownFailureSchema = z.object({
  file: z.string().min(1),
  description: z.string().min(1),
  reason: z.string().min(1),
});

const knownFailuresSchema = z.object({ failures: z.array(knownFailureSchema) });

export type KnownFailure = z.infer<typeof knownFailureSchema>;

export class KnownFailures {
  constructor(readonly entries: KnownFailure[]) {}

  static load(path: string): KnownFailures {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return new KnownFailures([]);
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new Error(`known-failures file ${path} is not JSON: ${String(error)}`);
    }
    const parsed = knownFailuresSchema.safeParse(json);
    if (!parsed.success) throw new Error(`known-failures file ${path} is malformed: ${parsed.error.message}`);
    return new KnownFailures(parsed.data.failures);
  }

  find(file: string, description: string): KnownFailure | undefined {
    const normalized = file.replaceAll("\\", "/");
    const entry = this.entries.find(
      (candidate) =>
        candidate.description === description &&
        (normalized === candidate.file || normalized.endsWith(`/${candidate.file}`)),
    );
    return entry;
  }
}

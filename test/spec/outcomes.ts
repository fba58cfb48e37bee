// The two ways a test stops early besides a driver error: an assertion that did not hold, and a
// feature of the unified test format this interpreter does not implement (reported as a skip).

/** An expectation of the test file that the observed behaviour did not meet. */
export class AssertionFailure extends Error {
  override name = "AssertionFailure";
}

/** The test needs an interpreter feature that is not built; the test is skipped, never dropped. */
export class UnsupportedFeature extends Error {
  override name = "UnsupportedFeature";
}

/** Any thrown value as an Error, so reports and rethrows have one shape. */
export function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

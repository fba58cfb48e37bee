// codeNames for the codes tests commonly inject with fail points, so that an injected error
// reads as mongod's would.
const CODE_NAMES: Record<number, string> = {
  1: "InternalError",
  2: "BadValue",
  6: "HostUnreachable",
  7: "HostNotFound",
  11: "UserNotFound",
  43: "CursorNotFound",
  50: "MaxTimeMSExpired",
  89: "NetworkTimeout",
  91: "ShutdownInProgress",
  112: "WriteConflict",
  133: "FailedToSatisfyReadPreference",
  189: "PrimarySteppedDown",
  234: "RetryChangeStream",
  251: "NoSuchTransaction",
  262: "ExceededTimeLimit",
  280: "ChangeStreamFatalError",
  286: "ChangeStreamHistoryLost",
  9001: "SocketException",
  10107: "NotWritablePrimary",
  11000: "DuplicateKey",
  11600: "InterruptedAtShutdown",
  11601: "Interrupted",
  11602: "InterruptedDueToReplStateChange",
  13435: "NotPrimaryNoSecondaryOk",
  13436: "NotPrimaryOrSecondary",
};

export function codeNameOf(code: number): string {
  return CODE_NAMES[code] ?? `Location${code}`;
}

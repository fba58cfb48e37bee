// What tests of requested sweeps share: waiting for a request to reach a state.
import { waitUntil } from "../../src/cli/wait-until.js";
import type {
  SweepRequest,
  SweepRequests,
  SweepRequestState,
} from "../../src/stream/sweep/sweep-requests.js";

/** The request once it is in `state`; fails the test after 20 s. */
export function requestInState(
  requests: SweepRequests,
  id: string,
  state: SweepRequestState,
): Promise<SweepRequest> {
  return waitUntil(
    async () => {
      const request = await requests.find(id);
      return request?.state === state ? request : undefined;
    },
    { timeoutMs: 20_000, description: `request ${id} to be ${state}` },
  );
}

// What bench/main.ts runs. One topic per file; each benchmark prints its own table and hands
// back the lines of its summary, which main.ts prints again at the end of the whole run.
export interface Benchmark {
  /** What `npm run bench -- <name>` selects. */
  name: string;
  description: string;
  run(): Promise<string[]>;
}

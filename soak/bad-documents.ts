// Documents no rule can plan for, one per pattern: the sidecar must leave them exactly as
// the application wrote them. A writer keeps touching an unrelated field, so that their
// change events keep reaching the sidecar.
import type { Document } from "mongodb";
import { isDeepStrictEqual } from "node:util";
import type { Workload } from "./workload.js";

type BadDocument = Document & { _id: string };

const BAD_DOCUMENTS: [collection: string, document: BadDocument][] = [
  ["sales", { _id: "bad-book", title: "Broken", customers_purchased: "not an array" }],
  ["trades", { _id: "999_1698335223", customerId: 999, count: 12, history: "not an array" }],
  ["products", { _id: "bad-product", name: "Broken", reviews: { not: "an array" } }],
];

export function badDocumentsWorkload(): Workload {
  const expected = new Map(BAD_DOCUMENTS.map(([collection, document]) => [collection, { ...document }]));
  let touches = 0;
  return {
    async setUp(db) {
      for (const [collection, document] of BAD_DOCUMENTS)
        await db.collection<BadDocument>(collection).insertOne({ ...document });
    },
    writers(db) {
      return [
        {
          name: "bad documents",
          async writeOnce() {
            touches += 1;
            for (const [collection, document] of expected) {
              document.touched = touches;
              await db
                .collection<BadDocument>(collection)
                .updateOne({ _id: document._id }, { $set: { touched: touches } });
            }
            return 0;
          },
        },
      ];
    },
    async violations(db) {
      const problems: string[] = [];
      for (const [collection, document] of expected) {
        const found = await db.collection<BadDocument>(collection).findOne({ _id: document._id });
        if (!isDeepStrictEqual(found, document))
          problems.push(
            `${collection} ${String(document._id)}: bad document changed to ${JSON.stringify(found)}`,
          );
      }
      return problems;
    },
  };
}

/* global db */
// The least-privilege role for the sidecar's MongoDB user, for mongosh:
//   mongosh "mongodb://<admin>@<host>/shop?replicaSet=rs0" deploy/mongodb-role.js
// It is created in the database of the connection string (`shop` above). Edit the
// rule lists below when your rules (the ConfigMap's config.yaml) name other collections.

const stateCollection = "pattern_sidecar_state";
// The outlier rules: the sidecar trims `collection`'s documents (update) and writes chunks to
// `overflowCollection` (insert, update, and remove: an application's chunk without a
// sequence, found beside numbered ones, is deleted in the transaction that appends its
// entries after them), whose index it creates.
const outlierRules = [{ collection: "sales", overflowCollection: "extra_sales" }];
// The bucket rules' `collection`s: the sidecar splits buckets (update, insert), deletes a loose
// trade (one document per trade, the schema before buckets) in the transaction that folds it
// into a bucket, and creates the index it reads loose trades through.
const bucketCollections = ["trades"];
// The subset rules: the sidecar trims `collection`'s embedded arrays (update) and copies
// entries to `fullSetCollection` (insert), whose index it creates. With `propagateDeletes`, it
// enables change-stream pre-images there (collMod) so that deletes reach the embedded arrays,
// and deletes a copy it made of a review an application had deleted (a copy-back). Set
// propagateDeletes to false here to run such a rule without (one warning at start).
const subsetRules = [{ collection: "products", fullSetCollection: "reviews", propagateDeletes: true }];

const database = db.getName();
const actionsByCollection = new Map();

function grant(collection, actions) {
  const granted = actionsByCollection.get(collection) ?? new Set();
  for (const action of actions) granted.add(action);
  actionsByCollection.set(collection, granted);
}

// Only the write actions the sidecar's commands need (test/ops/mongodb-role.test.ts records
// them): the sources are never inserted into, except buckets, and full sets never updated.
for (const { collection, overflowCollection } of outlierRules) {
  grant(collection, ["update"]);
  grant(overflowCollection, ["insert", "update", "remove", "createIndex"]);
}
for (const collection of bucketCollections) grant(collection, ["insert", "update", "remove", "createIndex"]);
for (const { collection, fullSetCollection, propagateDeletes } of subsetRules) {
  grant(collection, ["update"]);
  grant(fullSetCollection, ["insert", "createIndex"]);
  if (propagateDeletes) grant(fullSetCollection, ["remove", "collMod"]);
}
// Its own state: lease, resume tokens, parked documents, sweep checkpoints and the copy
// ledger, upserted (insert, update), deleted when done with, the ledger pruned through an index.
grant(stateCollection, ["insert", "update", "remove", "createIndex"]);
// Collections are created up front (a transaction may not create one implicitly), so each
// needs createCollection even where it usually exists already.
for (const collection of actionsByCollection.keys()) grant(collection, ["createCollection"]);

const privileges = [
  // The sidecar watches the whole database (db.watch()), which MongoDB authorises only with
  // find and changeStream on every non-system collection of the database: the empty
  // collection name. The same grant covers the sweeps' and transactions' reads. At start it
  // lists the collections with their options (pre-images set?): listCollections.
  { resource: { db: database, collection: "" }, actions: ["find", "changeStream", "listCollections"] },
  ...[...actionsByCollection].map(([collection, actions]) => ({
    resource: { db: database, collection },
    actions: [...actions],
  })),
];

db.createRole({ role: "patternSidecar", privileges, roles: [] });

/* global db */
// The least-privilege role for the sidecar's MongoDB user, for mongosh:
//   mongosh "mongodb://<admin>@<host>/shop?replicaSet=rs0" deploy/mongodb-role.js
// It is created in the database of the connection string (`shop` above). Edit the
// collection lists below when your rules (the ConfigMap's config.yaml) name other ones.

const stateCollection = "pattern_sidecar_state";
// The rules' `collection`s: the sidecar rewrites documents there, and the bucket rule
// inserts new buckets into its own collection.
const sourceCollections = ["sales", "trades", "products"];
// The outlier rule's overflowCollection and the subset rule's fullSetCollection: the sidecar
// inserts and updates there, and creates the indexes the rules rely on.
const sideCollections = ["extra_sales", "reviews"];
// The outlier rules' overflowCollections: an application's overflow document without a
// sequence, found beside numbered ones, is deleted in the transaction that appends its
// entries after them.
const overflowCollections = ["extra_sales"];
// The bucket rules' `collection`s: a loose trade (one document per trade, the schema before
// buckets) is deleted in the transaction that folds it into a bucket, and `migrate` creates
// the index it reads loose trades through.
const bucketCollections = ["trades"];
// The subset rules' fullSetCollection: the sidecar enables change-stream pre-images there
// (collMod) so that deletes reach the embedded arrays, and deletes a copy it made of a
// review an application had deleted (a copy-back). Leave a collection out of this list to
// run its rule without propagating deletes (one warning at start).
const fullSetCollections = ["reviews"];

const database = db.getName();
const actionsByCollection = new Map();

function grant(collection, actions) {
  const granted = actionsByCollection.get(collection) ?? new Set();
  for (const action of actions) granted.add(action);
  actionsByCollection.set(collection, granted);
}

// Collections are created up front (a transaction may not create one implicitly), so each
// needs createCollection even where it usually exists already. `remove` only where a
// document's contents move into another document of the same collection, where the sidecar
// undoes its own copy, and in its own state collection (unparked documents, finished sweeps'
// checkpoints, the pruned copy ledger, indexed by createIndex).
for (const collection of [...sourceCollections, ...sideCollections, stateCollection]) {
  grant(collection, ["insert", "update", "createCollection"]);
}
for (const collection of sideCollections) grant(collection, ["createIndex"]);
for (const collection of bucketCollections) grant(collection, ["remove", "createIndex"]);
for (const collection of fullSetCollections) grant(collection, ["remove", "collMod"]);
for (const collection of overflowCollections) grant(collection, ["remove"]);
grant(stateCollection, ["remove", "createIndex"]);

const privileges = [
  // The sidecar watches the whole database (db.watch()), which MongoDB authorises only with
  // find and changeStream on every non-system collection of the database: the empty
  // collection name. The same grant covers the sweeps' and transactions' reads.
  { resource: { db: database, collection: "" }, actions: ["find", "changeStream"] },
  ...[...actionsByCollection].map(([collection, actions]) => ({
    resource: { db: database, collection },
    actions: [...actions],
  })),
];

db.createRole({ role: "patternSidecar", privileges, roles: [] });

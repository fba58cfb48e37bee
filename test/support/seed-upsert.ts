// The bucket seed's insert of one trade, as its application writes it.
import { MongoServerError, type Collection, type Document } from "mongodb";

const DUPLICATE_KEY = 11000;

// The first bucket of the customer with room, or a new one named after the trade. A
// concurrent insert of the same `_id` fails with E11000; the seed's application retries, as
// the upsert's filter may match a bucket now.
export async function seedUpsert(
  trades: Collection<never>,
  customerId: number,
  entry: Document,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await trades.updateOne(
        { _id: new RegExp(`^${customerId}_`), count: { $lt: 10 } } as never,
        {
          $push: { history: entry },
          $inc: { count: 1 },
          $setOnInsert: { _id: `${customerId}_${(entry.date as Date).getTime() / 1000}`, customerId },
        } as never,
        { upsert: true },
      );
      return;
    } catch (error) {
      const duplicate = error instanceof MongoServerError && error.code === DUPLICATE_KEY;
      if (!duplicate || attempt === 5) throw error;
    }
  }
}

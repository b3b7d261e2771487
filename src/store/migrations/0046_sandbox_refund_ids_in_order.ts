// The sandbox airline's refund references come from a sequence (decision 0060): `<carrier>-RF-` and 12 hex digits of
// `sandbox_refund_ids`, given by the books' insert. They were 10 random hex digits drawn by the service, so each insert
// into the unique index on airline_refund_id landed on a random leaf page of it; in order, they land on its last one.
// The references drawn before keep their 10 digits and can never equal a 12-digit one; the unique index stays.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create sequence if not exists sandbox_refund_ids as bigint minvalue 1 maxvalue 281474976710655`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // An older build draws its references itself; those given from the sequence keep their 12 digits.
  await sql`drop sequence if exists sandbox_refund_ids`.execute(db);
}

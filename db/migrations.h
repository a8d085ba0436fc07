/*
 * migrations.h — the store's schema history, for db/store.c only.
 *
 * STORE_MIGRATIONS[i] is the SQL script that takes a store from schema
 * version i to version i + 1 (`PRAGMA user_version`).  store.c applies the
 * missing ones in order, one transaction each.
 *
 * Not for: callers outside db/ (they see the schema through store.h and
 * through SQL on the views it documents).
 */
#ifndef MIXBENCH_MIGRATIONS_H
#define MIXBENCH_MIGRATIONS_H

extern const char *const STORE_MIGRATIONS[];
/* Version 8 (db/migrations_v8.c), listed in STORE_MIGRATIONS with the others. */
extern const char STORE_MIGRATION_8[];
/* Version 11 (db/migrations_v11.c): runs.peak_run_mb and train_cpu_seconds. */
extern const char STORE_MIGRATION_11[];
extern const int STORE_MIGRATION_COUNT;

#endif

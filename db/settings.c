/*
 * settings.c — the settings table of settings.h: one SELECT or one
 * INSERT OR REPLACE (or DELETE) each.
 */
#include "db/settings.h"

#include <assert.h>
#include <string.h>

#include "db/store_internal.h"
#include "engine/common.h"

static int check_key(const char *key, char *err)
{
    if (!key || !*key || strlen(key) >= STORE_SETTING_KEY_MAX)
        return err_set(err, "store: a setting's key is 1 to %d bytes", STORE_SETTING_KEY_MAX - 1);
    return 0;
}

int store_setting_get(Store *s, const char *key, char *value, size_t cap, int *found, char *err)
{
    assert(s && value && cap > 0 && found && err);
    *found = 0;
    value[0] = 0;
    if (check_key(key, err)) return -1;
    const char *what = "read a setting";
    sqlite3_stmt *st;
    if (store_prepare(s, "SELECT value FROM settings WHERE key = ?1", &st, what, err)) return -1;
    if (store_bind_text(st, 1, key) != SQLITE_OK) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *found = 1;
        store_column_copy(value, cap, st, 0);
    }
    return store_finish(s, st, rc, what, err);
}

int store_setting_put(Store *s, const char *key, const char *value, char *err)
{
    assert(s && err);
    if (check_key(key, err)) return -1;
    const char *what = "write a setting";
    sqlite3_stmt *st;
    if (store_prepare(s,
                      value ? "INSERT OR REPLACE INTO settings (key, value) VALUES (?1, ?2)"
                            : "DELETE FROM settings WHERE key = ?1",
                      &st, what, err))
        return -1;
    if (store_bind_text(st, 1, key) != SQLITE_OK || (value && store_bind_text(st, 2, value) != SQLITE_OK)) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    return store_step_done(s, st, what, err);
}

/*
 * settings.h — what the workbench remembers of one store between launches
 * (schema version 7, table settings): the picks, the sort, the filter, the
 * screen, the New sweep form.  A key is a dotted name chosen by its reader
 * ("runs.sort"); a value is text the reader parses, and a reader takes a
 * missing or unreadable value as its default, so a store written by another
 * version never stops the workbench.
 *
 * Not for: anything a run's numbers depend on (that is in runs and its
 * config), or settings of the machine (the environment).
 */
#ifndef MIXBENCH_SETTINGS_H
#define MIXBENCH_SETTINGS_H

#include <stddef.h>

#include "db/store.h"

#define STORE_SETTING_KEY_MAX 64     /* bytes of a key, its NUL included */

/* The value of key into value[cap] (truncated to fit); *found 0 (value "")
   when the store has none. */
int store_setting_get(Store *s, const char *key, char *value, size_t cap, int *found, char *err);
/* Sets key to value; NULL deletes the key. */
int store_setting_put(Store *s, const char *key, const char *value, char *err);

#endif

/* The run history's schema (history_schema.c). */
#ifndef KSFTM_HISTORY_SCHEMA_H
#define KSFTM_HISTORY_SCHEMA_H

struct db;

/* ksftm_meta's value of @key (malloc'd in @value; NULL: none). @return 0
 * or a negative errno. */
int history_schema_meta_get(struct db *db, const char *key, char **value);

#endif

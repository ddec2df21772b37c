// SPDX-License-Identifier: GPL-2.0
/*
 * The tool's process-wide SQLite settings, made once before any history
 * is opened. ksft-metric is one thread that uses SQLite, so SQLite needs
 * neither its mutexes nor its memory statistics; only a process may say
 * so (sqlite3_config() before SQLite starts), never the library, which a
 * multi-threaded program (the Python binding's) may load.
 */
#include "cli.h"

#ifdef KSFTM_CLI_SQLITE
#include <sqlite3.h>
#endif

void cli_sqlite_process_setup(void)
{
#ifdef KSFTM_CLI_SQLITE
	/*
	 * SQLITE_MISUSE if SQLite was already started: then it keeps its
	 * defaults, which are correct, only slower.
	 */
	(void)sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
#endif
}

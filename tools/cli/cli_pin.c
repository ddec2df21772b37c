/* ksft-metric pin: freeze (or thaw) the baseline at a run. */
#include "cli.h"

static const char pin_usage[] =
	"usage: ksft-metric pin --db DB [--unpin] RUN\n"
	"\n"
	"Freeze the baseline: windows of runs comparable with RUN end at it (the\n"
	"latest pinned run) instead of following the newest runs. --unpin thaws.\n"
	"A series whose accepted level starts after RUN is not frozen: the level\n"
	"wins (its window starts there); pin says how many. 'history' marks the\n"
	"pinned runs.\n";

int cmd_pin(int argc, char **argv)
{
	return cli_run_action(argc, argv, "pin", pin_usage, 0);
}

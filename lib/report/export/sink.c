/* Writing a report or a comparison as it is made (sink.h). */
#include <errno.h>
#include <string.h>

#include "errmsg.h"
#include "sink.h"

void export_sink_flush(struct export_sink *k, struct strbuf *sb, int force)
{
	if (!k || sb->oom || (!force && sb->len < EXPORT_SINK_CHUNK))
		return;
	if (!k->err && sb->len) {
		errno = 0;
		if (fwrite(sb->data, 1, sb->len, k->f) != sb->len)
			k->err = errno ? errno : EIO;
	}
	sb->len = 0;
	if (sb->data)
		sb->data[0] = '\0';
}

int export_sink_end(struct export_sink *k, struct strbuf *sb)
{
	if (sb->oom)
		return -ENOMEM;
	export_sink_flush(k, sb, 1);
	errno = 0;
	if (!k->err && fflush(k->f))
		k->err = errno ? errno : EIO;
	if (k->err)
		return ksftm_fail(k->err, "writing the output: %s", strerror(k->err));
	return 0;
}

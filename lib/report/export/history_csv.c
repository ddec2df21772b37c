/*
 * `ksft-metric history`'s CSV (history_csv.h), from the document
 * store/history_query.c reads: one row per point, with whether a change
 * point starts there and the series' display unit and scale.
 */
#include <errno.h>
#include <jansson.h>

#include "canon.h"
#include "history_csv.h"
#include "strbuf.h"
#include "table.h"

int history_csv_render(json_t *doc, struct strbuf *sb)
{
	json_t *series, *p, *c;
	size_t i, k, q;

	strbuf_adds(sb, "series,run,order,value,status,state,change_point,unit,scale\r\n");
	json_array_foreach(json_object_get(doc, "series"), i, series) {
		json_t *changes = json_object_get(series, "changes");

		json_array_foreach(json_object_get(series, "points"), k, p) {
			int starts = 0;

			json_array_foreach(changes, q, c)
				starts |= (size_t)json_integer_value(json_object_get(c, "index")) == k;
			table_csv_field(sb, json_string_value(json_object_get(series, "series")));
			strbuf_addc(sb, ',');
			table_csv_field(sb, json_string_value(json_object_get(p, "run")));
			strbuf_addc(sb, ',');
			table_csv_field(sb, json_string_value(json_object_get(p, "order")));
			strbuf_addc(sb, ',');
			if (json_is_number(json_object_get(p, "value")))
				canon_json_double(sb, json_number_value(json_object_get(p, "value")));
			strbuf_addc(sb, ',');
			table_csv_field(sb, json_string_value(json_object_get(p, "status")));
			strbuf_addc(sb, ',');
			table_csv_field(sb, json_string_value(json_object_get(p, "state")));
			strbuf_adds(sb, starts ? ",1," : ",0,");
			/* The series' display unit: value times scale is in it. */
			if (json_is_string(json_object_get(series, "unit")))
				table_csv_field(sb, json_string_value(json_object_get(series, "unit")));
			strbuf_addc(sb, ',');
			canon_json_double(sb, json_is_number(json_object_get(series, "scale")) ?
					  json_number_value(json_object_get(series, "scale")) : 1.0);
			strbuf_adds(sb, "\r\n");
		}
	}
	return sb->oom ? -ENOMEM : 0;
}

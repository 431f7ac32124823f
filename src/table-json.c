/*
 * table-json.c — a table as JSON: {"rows": [one object per row], "notes": [...]}.
 * A row object holds every column under its key (labels as strings, or numbers for
 * TABLE_C_INT labels that parse; values exact, null for none), then "aggregate": true on
 * aggregate rows and "best": [keys marked best] when any.
 */
#include <stdint.h>

#include "json.h"
#include "table.h"
#include "util.h"

static void write_json(const struct table *r, struct sbuf *out)
{
	struct json j;
	json_init(&j, out, 1);
	json_obj(&j);
	json_key(&j, "rows");
	json_arr(&j);
	for (size_t row = 0; row < table_nrows(r); row++) {
		json_obj(&j);
		for (size_t i = 0; i < table_nlabels(r); i++) {
			const struct table_col *c = table_label_col(r, i);
			const char *s = table_label(r, row, i);
			int64_t v;
			json_key(&j, c->key);
			if (s && (c->flags & TABLE_C_INT) && parse_i64(s, &v) == 0)
				json_int(&j, v);
			else
				json_str(&j, s);
		}
		int nbest = 0;
		for (size_t i = 0; i < table_nnums(r); i++) {
			json_key(&j, table_num_col(r, i)->key);
			json_num(&j, table_value(r, row, i));
			nbest += table_is_best(r, row, i);
		}
		if (table_is_aggregate(r, row)) {
			json_key_bool(&j, "aggregate", 1);
		}
		if (nbest) {
			json_key(&j, "best");
			json_arr(&j);
			for (size_t i = 0; i < table_nnums(r); i++)
				if (table_is_best(r, row, i))
					json_str(&j, table_num_col(r, i)->key);
			json_end(&j);
		}
		json_end(&j);
	}
	json_end(&j);
	json_key(&j, "notes");
	json_arr(&j);
	for (size_t i = 0; i < table_nnotes(r); i++)
		json_str(&j, table_note(r, i));
	json_end(&j);
	json_end(&j);
}

const struct table_ops table_json = {
	.name = "json",
	.write = write_json,
};

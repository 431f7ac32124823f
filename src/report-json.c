/*
 * report-json.c — the report as one JSON object (report.h): the title, the warnings, the
 * verdict, the text of each section, and every table by its id as an array of row objects,
 * numbers unrounded (the shortest decimal that reads back exactly) and run ids with them.
 *
 *   {"title": ..., "warnings": [...], "verdict": "...",
 *    "sections": [{"title": ..., "text": [...]}],
 *    "tables": {"buckets": [{"policy": "fgd", "seeds": "1-3", "run_ids": "..", ...}], ...}}
 */
#include "json.h"
#include "report.h"

/* The text of every block of type: each as "key": text, or (key NULL) into the array open. */
static void texts(struct json *j, const struct report *r, int type, const char *key)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->blocks[i].type == type) {
			if (key)
				json_key(j, key);
			json_str(j, r->blocks[i].text);
		}
}

static void write_json(const struct report *r, const char *base, struct report_output *o)
{
	struct json j;
	(void)base;
	json_init(&j, &o->doc, 1);
	json_obj(&j);
	texts(&j, r, REPORT_B_TITLE, "title");
	json_key(&j, "warnings");
	json_arr(&j);
	texts(&j, r, REPORT_B_WARN, NULL);
	json_end(&j);
	texts(&j, r, REPORT_B_VERDICT, "verdict");
	json_key(&j, "sections");
	json_arr(&j);
	int open = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct report_block *b = &r->blocks[i];
		if (b->type == REPORT_B_HEADING) {
			if (open) {
				json_end(&j);
				json_end(&j);
			}
			json_obj(&j);
			json_key_str(&j, "title", b->text);
			json_key(&j, "text");
			json_arr(&j);
			open = 1;
		} else if (open && (b->type == REPORT_B_PARA || b->type == REPORT_B_ITEM)) {
			json_str(&j, b->text);
		}
	}
	if (open) {
		json_end(&j);
		json_end(&j);
	}
	json_end(&j);
	json_key(&j, "tables");
	json_obj(&j);
	struct sbuf v = SBUF_INIT;
	sbuf_init(&v);
	for (size_t i = 0; i < r->n; i++) {
		const struct table *t = r->blocks[i].table;
		if (r->blocks[i].type != REPORT_B_TABLE)
			continue;
		json_key(&j, table_id(t));
		json_arr(&j);
		for (size_t row = 0; row < table_nrows(t); row++) {
			json_obj(&j);
			for (size_t c = 0; c < table_ncols(t); c++) {
				const struct table_cell *cell = table_cell(t, row, c);
				json_key(&j, table_col(t, c)->key);
				if ((table_col(t, c)->flags & TABLE_C_TEXT))
					json_str(&j, cell->s);
				else
					json_num(&j, cell->v);
			}
			json_end(&j);
		}
		json_end(&j);
	}
	sbuf_release(&v);
	json_end(&j);
	json_end(&j);
	sbuf_addc(&o->doc, '\n');
}

const struct report_ops report_json = {"json", ".json", write_json};

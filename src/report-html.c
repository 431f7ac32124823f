/*
 * report-html.c — the report as one self-contained HTML file (report.h): a style sheet in
 * the head, the charts as inline SVG, no script and nothing fetched. It is also well-formed
 * XML (every element closed, no named entities but XML's), so XML tools read it as well.
 */
#include <string.h>

#include "esc.h"
#include "report.h"

static const char style[] =
	"body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;"
	"color:#222;line-height:1.4}"
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;margin:0.5em 0 1em;font-size:0.85em}"
	"th,td{padding:0.2em 0.6em;border-bottom:1px solid #e4e4e4;text-align:left}"
	"th{background:#f4f4f4}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
	"caption{text-align:left;font-style:italic;padding:0.3em 0}"
	".warn{background:#fff4e0;border-left:4px solid #E69F00;padding:0.4em 0.8em}"
	".verdict{font-size:1.15em;font-weight:bold;background:#eef5fb;"
	"border-left:4px solid #0072B2;padding:0.6em 0.8em}"
	".chart{margin:1em 0}.chart svg{max-width:100%;height:auto}";

static void table(struct sbuf *out, const struct report_block *b)
{
	const struct table *t = b->table;
	struct sbuf v = SBUF_INIT;
	sbuf_init(&v);
	sbuf_adds(out, "<table>\n");
	if (b->text) {
		sbuf_adds(out, "<caption>");
		esc_xml(out, b->text);
		sbuf_adds(out, "</caption>\n");
	}
	sbuf_adds(out, "<thead><tr>");
	for (size_t c = 0; c < table_ncols(t); c++)
		if (table_shown(t, c)) {
			sbuf_adds(out, (table_col(t, c)->flags & TABLE_C_TEXT)
					       ? "<th>"
					       : "<th class=\"n\">");
			esc_xml(out, table_col(t, c)->head);
			sbuf_adds(out, "</th>");
		}
	sbuf_adds(out, "</tr></thead>\n<tbody>\n");
	for (size_t r = 0; r < table_nrows(t); r++) {
		sbuf_adds(out, "<tr>");
		for (size_t c = 0; c < table_ncols(t); c++)
			if (table_shown(t, c)) {
				sbuf_reset(&v);
				table_cell_human(t, r, c, &v);
				sbuf_adds(out, (table_col(t, c)->flags & TABLE_C_TEXT)
						       ? "<td>"
						       : "<td class=\"n\">");
				esc_xml(out, v.s);
				sbuf_adds(out, "</td>");
			}
		sbuf_adds(out, "</tr>\n");
	}
	sbuf_adds(out, "</tbody>\n</table>\n");
	sbuf_release(&v);
}

/* What a block of one line of text is written between. */
static const struct {
	const char *open, *close;
} wrap[] = {
	[REPORT_B_TITLE] = {"<h1>", "</h1>\n"},
	[REPORT_B_HEADING] = {"<h2>", "</h2>\n"},
	[REPORT_B_WARN] = {"<p class=\"warn\"><strong>Warning:</strong> ", "</p>\n"},
	[REPORT_B_VERDICT] = {"<p class=\"verdict\">", "</p>\n"},
};

static void write_html(const struct report *r, const char *base, struct report_output *o)
{
	struct sbuf *out = &o->doc;
	const char *title =
		r->n && r->blocks[0].type == REPORT_B_TITLE ? r->blocks[0].text : "voidfit report";
	(void)base;
	sbuf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
		       "<title>");
	esc_xml(out, title);
	sbuf_printf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
	for (size_t i = 0; i < r->n; i++) {
		const struct report_block *b = &r->blocks[i];
		if (b->flags & REPORT_BF_RAW)
			continue;
		int prev_item = i > 0 && r->blocks[i - 1].type == REPORT_B_ITEM;
		int next_item = i + 1 < r->n && r->blocks[i + 1].type == REPORT_B_ITEM;
		switch (b->type) {
		case REPORT_B_TITLE:
		case REPORT_B_HEADING:
		case REPORT_B_WARN:
		case REPORT_B_VERDICT:
			sbuf_adds(out, wrap[b->type].open);
			esc_xml(out, b->text);
			sbuf_adds(out, wrap[b->type].close);
			break;
		case REPORT_B_ITEM:
			sbuf_adds(out, prev_item ? "<li>" : "<ul>\n<li>");
			esc_xml(out, b->text);
			sbuf_adds(out, next_item ? "</li>\n" : "</li>\n</ul>\n");
			break;
		case REPORT_B_TABLE:
			table(out, b);
			break;
		case REPORT_B_CHART:
			sbuf_adds(out, "<div class=\"chart\">\n");
			sbuf_add(out, b->svg.s, b->svg.len);
			sbuf_adds(out, "</div>\n");
			break;
		default:
			sbuf_adds(out, "<p>");
			esc_xml(out, b->text);
			sbuf_adds(out, "</p>\n");
		}
	}
	sbuf_adds(out, "</body>\n</html>\n");
}

const struct report_ops report_html = {"html", ".html", write_html};

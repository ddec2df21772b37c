/*
 * SVG primitives for ksft-metric plot: no scripts, no external fonts (the
 * generic "sans-serif" family), every piece of text escaped, so the file
 * can be attached to a CI report as is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"
#include "svg.h"

void svg_free(struct svg *s)
{
	free(s->data);
	memset(s, 0, sizeof(*s));
}

static int reserve(struct svg *s, size_t more)
{
	size_t cap = s->cap ? s->cap : 4096;
	char *p;

	if (s->oom)
		return -ENOMEM;
	while (cap - s->len <= more)
		cap *= 2;
	if (cap == s->cap)
		return 0;
	p = realloc(s->data, cap);
	if (!p) {
		s->oom = 1;
		return -ENOMEM;
	}
	s->data = p;
	s->cap = cap;
	return 0;
}

void svg_printf(struct svg *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(s, (size_t)n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf(s->data + s->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	s->len += (size_t)n;
}

/*
 * Every text that reaches SVG or HTML: valid UTF-8 (each byte that starts
 * no well-formed sequence becomes U+FFFD) and XML 1.0 characters only
 * (C0 and C1 controls and DEL become '?', U+FFFE/U+FFFF become U+FFFD).
 */
void svg_escape(struct svg *s, const char *t)
{
	size_t n = strlen(t), i = 0, len;

	while (i < n) {
		unsigned char c = (unsigned char)t[i];

		len = utf8_seq_len(t + i, n - i);
		if (!len) {
			svg_printf(s, "\xef\xbf\xbd");	/* U+FFFD */
			i++;
			continue;
		}
		if (len > 1) {
			const unsigned char *u = (const unsigned char *)t + i;

			if (len == 2 && c == 0xc2 && u[1] < 0xa0)
				svg_printf(s, "?");	/* C1 control */
			else if (len == 3 && c == 0xef && u[1] == 0xbf && u[2] >= 0xbe)
				svg_printf(s, "\xef\xbf\xbd");	/* not a character */
			else
				svg_printf(s, "%.*s", (int)len, t + i);
			i += len;
			continue;
		}
		switch (c) {
		case '&': svg_printf(s, "&amp;"); break;
		case '<': svg_printf(s, "&lt;"); break;
		case '>': svg_printf(s, "&gt;"); break;
		case '"': svg_printf(s, "&quot;"); break;
		case '\'': svg_printf(s, "&apos;"); break;
		default:
			/* XML 1.0 forbids most C0 controls, even escaped. */
			svg_printf(s, "%c", c < 0x20 || c == 0x7f ? '?' : (char)c);
		}
		i++;
	}
}

void svg_text(struct svg *s, double x, double y, const char *anchor,
	      double size, const char *fill, const char *text)
{
	svg_printf(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%.0f\" fill=\"%s\">",
		   x, y, anchor, size, fill);
	svg_escape(s, text);
	svg_printf(s, "</text>\n");
}

void svg_line(struct svg *s, double x1, double y1, double x2, double y2,
	      const char *stroke, double width)
{
	svg_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\"/>\n",
		   x1, y1, x2, y2, stroke, width);
}

void svg_rect(struct svg *s, double x, double y, double w, double h,
	      const char *fill)
{
	svg_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
		   x, y, w, h, fill);
}

char *svg_document(const struct svg *body, double width, double height,
		   const char *title, size_t *len)
{
	struct svg doc = { 0 };

	svg_printf(&doc, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n<title>",
		   width, height, width, height);
	svg_escape(&doc, title);
	svg_printf(&doc, "</title>\n<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
		   width, height);
	if (!reserve(&doc, body->len + 1)) {
		memcpy(doc.data + doc.len, body->data, body->len);
		doc.len += body->len;
	}
	svg_printf(&doc, "</svg>\n");
	if (doc.oom || body->oom) {
		svg_free(&doc);
		return NULL;
	}
	*len = doc.len;
	return doc.data;
}

double chart_px(const struct chart *c, double x)
{
	double span = c->xmax - c->xmin;

	return c->x + (span > 0 ? (x - c->xmin) / span : 0.5) * c->w;
}

double chart_py(const struct chart *c, double y)
{
	double span = c->ymax - c->ymin, f = span > 0 ? (y - c->ymin) / span : 0.5;

	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;		/* clip to the display range */
	return c->y + c->h - f * c->h;
}

static double nice_step(double span)
{
	double raw = span / 5, mag, f;

	if (!(raw > 0))
		return 1;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

void nice_range(double *lo, double *hi)
{
	double step;

	if (!isfinite(*lo) || !isfinite(*hi)) {
		*lo = 0;
		*hi = 1;
		return;
	}
	if (*hi <= *lo) {
		double pad = fabs(*lo) > 0 ? fabs(*lo) * 0.1 : 1;

		*lo -= pad;
		*hi += pad;
	}
	step = nice_step(*hi - *lo);
	*lo = floor(*lo / step) * step;
	*hi = ceil(*hi / step) * step;
}

void chart_xaxis(struct svg *s, const struct chart *c, const char *xlabel)
{
	double step, v;
	char buf[48];

	step = nice_step(c->xmax - c->xmin);
	for (v = ceil(c->xmin / step) * step; v <= c->xmax + step * 1e-9; v += step) {
		double px = chart_px(c, v);

		svg_line(s, px, c->y + c->h, px, c->y + c->h + 4, "#888888", 1);
		snprintf(buf, sizeof(buf), "%g", fabs(v) < step * 1e-9 ? 0.0 : v);
		svg_text(s, px, c->y + c->h + 15, "middle", 10, "#333333", buf);
	}
	if (xlabel)
		svg_text(s, c->x + c->w / 2, c->y + c->h + 30, "middle", 11,
			 "#333333", xlabel);
}

void chart_axes(struct svg *s, const struct chart *c, const char *title,
		const char *xlabel, const char *ylabel)
{
	chart_yaxis(s, c, ylabel);
	chart_xaxis(s, c, xlabel);
	if (title)
		svg_text(s, c->x, c->y - 8, "start", 13, "#000000", title);
}

void chart_yaxis(struct svg *s, const struct chart *c, const char *ylabel)
{
	double step, v;
	char buf[48];

	svg_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fafafa\" stroke=\"#888888\"/>\n",
		   c->x, c->y, c->w, c->h);
	step = nice_step(c->ymax - c->ymin);
	for (v = ceil(c->ymin / step) * step; v <= c->ymax + step * 1e-9; v += step) {
		double py = chart_py(c, v);

		svg_line(s, c->x, py, c->x + c->w, py, "#e0e0e0", 1);
		snprintf(buf, sizeof(buf), "%g", fabs(v) < step * 1e-9 ? 0.0 : v);
		svg_text(s, c->x - 6, py + 4, "end", 10, "#333333", buf);
	}
	if (ylabel) {
		svg_printf(s, "<g transform=\"translate(%.1f %.1f) rotate(-90)\">",
			   c->x - 60, c->y + c->h / 2);
		svg_text(s, 0, 0, "middle", 11, "#333333", ylabel);
		svg_printf(s, "</g>\n");
	}
}

void chart_series(struct svg *s, const struct chart *c, const double *x,
		  const double *y, size_t n, size_t stride, const char *color)
{
	size_t i, shown = 0;

	for (i = 0; i < n; i++)
		shown += isfinite(x[i]) && isfinite(y[i * stride]);
	if (shown > 1) {
		svg_printf(s, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			   color);
		for (i = 0; i < n; i++)
			if (isfinite(x[i]) && isfinite(y[i * stride]))
				svg_printf(s, "%.1f,%.1f ", chart_px(c, x[i]),
					   chart_py(c, y[i * stride]));
		svg_printf(s, "\"/>\n");
	}
	if (shown <= 50)
		for (i = 0; i < n; i++)
			if (isfinite(x[i]) && isfinite(y[i * stride]))
				svg_printf(s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
					   chart_px(c, x[i]), chart_py(c, y[i * stride]),
					   color);
}

void chart_points(struct svg *s, const struct chart *c, const double *x,
		  const double *y, size_t n, const char *color)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (isfinite(x[i]) && isfinite(y[i]))
			svg_printf(s, "<circle class=\"rep\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
				   "fill=\"%s\" fill-opacity=\"0.8\"/>\n", chart_px(c, x[i]),
				   chart_py(c, y[i]), color);
}

const char *palette(size_t i)
{
	static const char *const colors[] = {
		"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
		"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
	};

	return colors[i % (sizeof(colors) / sizeof(colors[0]))];
}

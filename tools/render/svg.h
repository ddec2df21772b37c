/* A small SVG writer: self-contained output, every text XML-escaped. */
#ifndef KSFT_METRIC_SVG_H
#define KSFT_METRIC_SVG_H

#include <stddef.h>

struct svg {
	char *data;
	size_t len, cap;
	int oom;
};

void svg_free(struct svg *s);
void svg_printf(struct svg *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append @text escaped for XML (&, <, >, quotes; controls become '?', bad UTF-8 U+FFFD). */
void svg_escape(struct svg *s, const char *text);
/* <text> at (x, y); anchor "start", "middle" or "end". */
void svg_text(struct svg *s, double x, double y, const char *anchor,
	      double size, const char *fill, const char *text);
void svg_line(struct svg *s, double x1, double y1, double x2, double y2,
	      const char *stroke, double width);
void svg_rect(struct svg *s, double x, double y, double w, double h,
	      const char *fill);
/* The document: header with the final size, @body, closing tag. */
char *svg_document(const struct svg *body, double width, double height,
		   const char *title, size_t *len);

/* A 2-D plot area mapping data to pixels. */
struct chart {
	double x, y, w, h;		/* pixels */
	double xmin, xmax, ymin, ymax;	/* data */
};

double chart_px(const struct chart *c, double x);
double chart_py(const struct chart *c, double y);
/* The x axis alone: ticks, their numbers, @xlabel (may be NULL). */
void chart_xaxis(struct svg *s, const struct chart *c, const char *xlabel);
/* Frame, y ticks and @ylabel (may be NULL): an x axis of one's own. */
void chart_yaxis(struct svg *s, const struct chart *c, const char *ylabel);
/* Frame, ticks and labels. */
void chart_axes(struct svg *s, const struct chart *c, const char *title,
		const char *xlabel, const char *ylabel);
/* A polyline through the finite points (a dot when there is one). */
void chart_series(struct svg *s, const struct chart *c, const double *x,
		  const double *y, size_t n, size_t stride, const char *color);
/* A dot per finite point, no line between them (class "rep": a repeat's). */
void chart_points(struct svg *s, const struct chart *c, const double *x,
		  const double *y, size_t n, const char *color);
/* Round [lo, hi] out to "nice" numbers. */
void nice_range(double *lo, double *hi);

const char *palette(size_t i);

#endif

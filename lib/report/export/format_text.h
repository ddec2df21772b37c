/*
 * The text writer's unit for a row (format_text.c), which the other
 * text tables (compare, history, ab) share.
 */
#ifndef KSFTM_FORMAT_TEXT_H
#define KSFTM_FORMAT_TEXT_H

struct text_unit;

/* The series' display unit and scale (model/units.c's one rule) under the
 * policy's display_scale @scale (NaN or <= 0: 1) and display_label @label;
 * @ref is not used (a unit never follows a value's size). */
void format_text_unit_pick(struct text_unit *u, double ref, double scale, const char *label);

#endif

/*
 * The tags that start libksftmetric's KTAP diagnostic lines (after the
 * "# " prefix). The producer writes TAG " " JSON; the consumer matches
 * the tag and reads the JSON from KSFTM_TAG_LEN(TAG) on.
 */
#ifndef KSFTM_KTAP_TAGS_H
#define KSFTM_KTAP_TAGS_H

#define KSFTM_TAG_METRIC	"ktap-metric-json:"
#define KSFTM_TAG_POLICY	"ktap-metric-policy-json:"
#define KSFTM_TAG_ABORT		"ktap-metric-abort-json:"
#define KSFTM_TAG_CONTEXT	"ktap-metric-context-json:"
#define KSFTM_TAG_STREAM	"ktap-metric-stream-json:"
#define KSFTM_TAG_WARNING	"ktap-metric-warning-json:"

/* Length of a tag (a string literal), without the NUL. */
#define KSFTM_TAG_LEN(tag)	(sizeof(tag) - 1)

#endif

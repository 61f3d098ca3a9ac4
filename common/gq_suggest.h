/* "Did you mean": the known name a mistyped one most likely meant, for every
 * refusal of a name (commands, quantizers, models, platforms, GPUs, a
 * measured CSV's columns), one rule for all of them. */
#ifndef GQ_SUGGEST_H
#define GQ_SUGGEST_H

#include <stddef.h>

/* Edit distance between a and b (insertions, deletions, substitutions and swaps of neighbours: "qsdg" is one
 * from "qsgd"), counting case, stopping at 3 (all that matters here). */
int gq_edit_distance(const char *a, const char *b);

/* Of names[0..n): the one equal to word but for case, else the nearest within 1 edit (words shorter than 6
 * characters) or 2 (longer ones), the first of equals; NULL if none is that near, or word is one of them. */
const char *gq_suggest(const char *word, const char *const *names, size_t n);

/* Which of names[0..n) word names: the one equal to it, else the only one equal to it but for case (QSGD is qsgd,
 * DGX1 is dgx1); -1 if none, or if several differ from it only in case. One rule for every name a user types. */
int gq_match_name(const char *word, const char *const *names, size_t n);

/* ", did you mean 'NAME'?" with gq_suggest's NAME, written into buf, or "" where there is none: the words every
 * refusal of a name puts after the name. @return buf. */
const char *gq_did_you_mean(const char *word, const char *const *names, size_t n, char *buf, size_t cap);

#endif

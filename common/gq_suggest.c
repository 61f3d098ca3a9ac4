/* Suggestions for mistyped names; see gq_suggest.h. */
#include "gq_suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int gq_edit_distance(const char *a, const char *b)
{
    const size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64 || (n > m ? n - m : m - n) > 2) return 3;
    int d[65][65]; /* d[i][j]: a's first i characters against b's first j */
    for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]); /* substitute, or keep */
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;  /* delete */
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;  /* insert */
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1; /* swap two neighbours */
            d[i][j] = best;
        }
    return d[n][m] < 3 ? d[n][m] : 3;
}

static int equal_but_case(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return !*a && !*b;
}

const char *gq_suggest(const char *word, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(word, names[i]) == 0) return NULL;
    for (size_t i = 0; i < n; i++)
        if (equal_but_case(word, names[i])) return names[i];
    const int allowed = strlen(word) >= 6 ? 2 : 1;
    const char *best = NULL;
    int best_d = allowed + 1;
    for (size_t i = 0; i < n; i++) {
        const int d = gq_edit_distance(word, names[i]);
        if (d < best_d) best = names[i], best_d = d;
    }
    return best;
}

const char *gq_did_you_mean(const char *word, const char *const *names, size_t n, char *buf, size_t cap)
{
    const char *near = gq_suggest(word, names, n);
    if (cap) buf[0] = '\0';
    if (near) snprintf(buf, cap, ", did you mean '%s'?", near);
    return buf;
}

int gq_match_name(const char *word, const char *const *names, size_t n)
{
    int found = -1, alike = 0;
    for (size_t i = 0; i < n; i++) {
        if (!names[i]) continue; /* a gap in a table */
        if (strcmp(word, names[i]) == 0) return (int)i;
        if (strcasecmp(word, names[i]) == 0) found = (int)i, alike++;
    }
    return alike == 1 ? found : -1;
}

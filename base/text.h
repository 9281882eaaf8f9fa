/* Text for fixed-width columns (base/text.c): display width and fitting with an ellipsis, used
 * by the TUI (tui_fit and friends are these) and by the model's text tables. */
#ifndef ROCSYS_BASE_TEXT_H
#define ROCSYS_BASE_TEXT_H

#include <stddef.h>

/* Display width of s (utf8: UTF-8 with wcwidth; else one column per byte). */
int text_width(const char *s, int utf8);
/* Copy s into out so that it takes at most width columns, ending with an ellipsis ("…" when
 * utf8, "..." otherwise) if it had to be cut. Control characters become '?'; without utf8,
 * every non-ASCII byte becomes '?' too. Returns the columns used. */
int text_fit(char *out, size_t outsz, const char *s, int width, int utf8);
/* The same, but a text that does not fit keeps its start and its end with the ellipsis in the
 * middle ("saxpy_kern…<float>"). */
int text_fit_middle(char *out, size_t outsz, const char *s, int width, int utf8);

#endif

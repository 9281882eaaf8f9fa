/* The keys of --help and F1 come from the view table: every view of tui_views[] is listed with
 * its key, every help line a view supplies is there, each view's row has its callbacks (the
 * optional ones present exactly when the view file defines them), and the lines fit the help
 * box of an 80-column terminal. */
#define _GNU_SOURCE 1
#include "tui/tui.h"
#include "tui/tui_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* What tui_help_keys prints, as one string. */
static char *help_text(void)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);

    tui_help_keys(f);
    fclose(f);
    return buf;
}

int main(void)
{
    char *text = help_text();
    int clicks = 0, lists = 0, helps = 0, globals = 0;

    CHECK(tui_view_count >= 13);
    for (int i = 0; i < tui_view_count; i++) {
        const struct tui_view *v = tui_views[i];
        char item[64];

        snprintf(item, sizeof(item), "%c %s", v->hotkey, v->name);
        CHECK_MSG(strstr(text, item) != NULL, "--help keys do not list view \"%s\"", item);
        CHECK_MSG(v->create && v->destroy && v->rebuild && v->draw && v->status && v->batch,
                  "view %s lacks a callback", v->name);
        for (int k = 0; k < i; k++)
            CHECK_MSG(tui_views[k]->hotkey != v->hotkey, "views %s and %s share key %c",
                      tui_views[k]->name, v->name, v->hotkey);
        for (const struct tui_key_help *h = v->help; h && h->keys; h++) {
            CHECK_MSG(strstr(text, h->what) != NULL, "--help lacks view %s's line \"%s\"", v->name,
                      h->what);
            helps++;
        }
        clicks += v->click != NULL || v->list != NULL;
        lists += v->list != NULL;
        CHECK_MSG(v->key || v->list, "view %s takes no key", v->name);
        globals += v->global_key != NULL;
    }
    /* the optional callbacks: present where the view file defines them, NULL elsewhere */
    CHECK(tui_views[tui_view_find("Hot functions")]->list != NULL);
    CHECK(tui_views[tui_view_find("Hot functions")]->click == NULL); /* the list layer's */
    CHECK(tui_views[tui_view_find("Kernels")]->click != NULL);
    CHECK(tui_views[tui_view_find("Output")]->click == NULL);
    CHECK(tui_views[tui_view_find("Output")]->list == NULL);
    CHECK(tui_views[tui_view_find("Output")]->key != NULL);
    CHECK(tui_views[tui_view_find("Regions")]->key == NULL); /* its keys are the list's */
    CHECK(tui_views[tui_view_find("Ranks")]->global_key != NULL);
    CHECK(tui_views[tui_view_find("Call tree")]->help != NULL);
    CHECK(tui_views[tui_view_find("Causal")]->help == NULL);
    CHECK(clicks >= 8 && clicks < tui_view_count);
    CHECK(globals == 1);
    CHECK(lists >= 6);
    CHECK(helps >= 10);
    /* the common keys, and lines that fit the 76 columns of the help box (plus the indent) */
    CHECK(strstr(text, "F10 q") != NULL && strstr(text, "quit") != NULL);
    for (char *line = text, *end; *line; line = end + 1) {
        end = strchr(line, '\n');
        if (!end)
            break;
        CHECK_MSG(end - line <= 78, "help line too wide (%d): %.*s", (int)(end - line),
                  (int)(end - line), line);
    }
    free(text);
    return check_summary();
}

/* The target's output tail for the Output view: the last lines of stdout and stderr, in the
 * order they arrived. The full output goes to the session's log file, not here. */
#include <string.h>

#include "model_internal.h"

#define OUTPUT_MAX_LINES 5000
#define OUTPUT_MAX_LINE  4096 /* longer lines are split */

struct model_output {
    char *lines[OUTPUT_MAX_LINES]; /* ring of lines */
    uint8_t streams[OUTPUT_MAX_LINES];
    size_t first, count;
    char partial[3][OUTPUT_MAX_LINE]; /* unfinished line per stream (1, 2) */
    size_t partial_len[3];
};

/* Append a finished line to the ring, evicting the oldest when full. */
static void push_line(struct model_output *o, int stream, const char *s, size_t n)
{
    size_t slot;

    if (n && s[n - 1] == '\r')
        n--;
    if (o->count == OUTPUT_MAX_LINES) {
        free(o->lines[o->first]);
        o->first = (o->first + 1) % OUTPUT_MAX_LINES;
        o->count--;
    }
    slot = (o->first + o->count) % OUTPUT_MAX_LINES;
    o->lines[slot] = xmalloc(n + 1);
    memcpy(o->lines[slot], s, n);
    o->lines[slot][n] = '\0';
    o->streams[slot] = (uint8_t)stream;
    o->count++;
}

void model_output_append(struct model *m, int stream, const char *data, size_t len)
{
    struct model_output *o;

    if (stream != 1 && stream != 2)
        stream = 1;
    if (!m->output)
        m->output = xcalloc(1, sizeof(*m->output));
    o = m->output;
    for (size_t i = 0; i < len; i++) {
        char c = data[i];
        if (c == '\n' || o->partial_len[stream] == OUTPUT_MAX_LINE) {
            push_line(o, stream, o->partial[stream], o->partial_len[stream]);
            o->partial_len[stream] = 0;
            if (c == '\n')
                continue;
        }
        o->partial[stream][o->partial_len[stream]++] = c;
    }
}

size_t model_output_lines(const struct model *m)
{
    return m->output ? m->output->count : 0;
}

const char *model_output_line(const struct model *m, size_t i, int *stream)
{
    const struct model_output *o = m->output;
    if (!o || i >= o->count)
        return NULL;
    size_t slot = (o->first + i) % OUTPUT_MAX_LINES;
    if (stream)
        *stream = o->streams[slot];
    return o->lines[slot];
}

/* Flush unfinished lines (at the end of the session, so the last line without '\n' shows). */
void model_output_flush(struct model *m)
{
    struct model_output *o = m->output;
    if (!o)
        return;
    for (int s = 1; s <= 2; s++)
        if (o->partial_len[s]) {
            push_line(o, s, o->partial[s], o->partial_len[s]);
            o->partial_len[s] = 0;
        }
}

void model_output_free(struct model *m)
{
    struct model_output *o = m->output;
    if (!o)
        return;
    for (size_t i = 0; i < o->count; i++)
        free(o->lines[(o->first + i) % OUTPUT_MAX_LINES]);
    free(o);
    m->output = NULL;
}

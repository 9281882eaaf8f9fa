/* pprof's profile.proto (github.com/google/pprof, proto/profile.proto): a builder that interns
 * strings, mappings, functions and locations and writes the profile gzip-compressed, and a
 * reader of such files (--merge, tests). Output is a function of the calls made: the same
 * calls in the same order give the same bytes. */
#ifndef ROCSYS_RECORD_PPROF_H
#define ROCSYS_RECORD_PPROF_H

#include <stddef.h>
#include <stdint.h>

#define PPROF_MAX_TYPES 8 /* sample types a profile may have */

struct pprof;
struct pprof_data;

/* A sample's label: str set (a string label), else num with num_unit (may be NULL). */
struct pprof_label {
    const char *key;
    const char *str;
    int64_t num;
    const char *num_unit;
};

struct pprof *pprof_new(void);
void pprof_free(struct pprof *p);
/* Add a sample type (before any sample): its index in every sample's values, -1 when full. */
int pprof_sample_type(struct pprof *p, const char *type, const char *unit);
/* The kind and number of events between samples (Profile.period_type, period). */
void pprof_set_period(struct pprof *p, const char *type, const char *unit, int64_t period);
/* The sample type readers show unless told otherwise. */
void pprof_set_default_type(struct pprof *p, const char *type);
/* When the profile started (ns since the epoch, 0: unknown) and how long it covers. */
void pprof_set_times(struct pprof *p, int64_t time_nanos, int64_t duration_nanos);
/* A line of free text (Profile.comment). */
void pprof_comment(struct pprof *p, const char *text);
/* The id of the mapping of object file (made on first use). */
uint64_t pprof_mapping(struct pprof *p, const char *file);
/* The id of function (name, file, start_line) (made on first use; file may be NULL). */
uint64_t pprof_function(struct pprof *p, const char *name, const char *file, int64_t start_line);
/* The id of the location of line in function of mapping (0: none) (made on first use). */
uint64_t pprof_location(struct pprof *p, uint64_t mapping, uint64_t function, int64_t line);
/* A sample: locations leaf first, one value per sample type (as many as were added). */
void pprof_sample(struct pprof *p, const uint64_t *locs, size_t nlocs, const int64_t *values,
                  const struct pprof_label *labels, size_t nlabels);
/* Add profile d (read by pprof_read) to p: when p has no sample type yet, d's sample types,
 * period, default type and comments become p's; else d's values go to p's types of the same
 * name (others are dropped). Every sample keeps its frames (the first line of each location)
 * and labels, and gets the labels of extra whose key it does not have. */
void pprof_add_data(struct pprof *p, const struct pprof_data *d, const struct pprof_label *extra,
                    size_t nextra);
/* Write the profile, gzip-compressed, to fd: 0, or the errno of a write that failed. */
int pprof_write_gz(struct pprof *p, int fd);

/* ---- reading (pprof_read.c) ---- */

struct pprof_line {
    uint64_t function;
    int64_t line;
};
struct pprof_location_data {
    uint64_t id, mapping;
    struct pprof_line *lines;
    size_t nlines;
};
struct pprof_function_data {
    uint64_t id;
    int64_t name, filename, start_line; /* string indexes */
};
struct pprof_mapping_data {
    uint64_t id;
    int64_t filename;
};
struct pprof_label_data {
    int64_t key, str, num, num_unit; /* string indexes but num */
};
struct pprof_sample_data {
    uint64_t *locs; /* leaf first */
    size_t nlocs;
    int64_t *values;
    size_t nvalues;
    struct pprof_label_data *labels;
    size_t nlabels;
};
/* A decoded profile: every string index is checked to be within strings. */
struct pprof_data {
    char **strings;
    size_t nstrings;
    int64_t types[PPROF_MAX_TYPES][2]; /* (type, unit) */
    size_t ntypes;
    struct pprof_sample_data *samples;
    size_t nsamples;
    struct pprof_location_data *locations;
    size_t nlocations;
    struct pprof_function_data *functions;
    size_t nfunctions;
    struct pprof_mapping_data *mappings;
    size_t nmappings;
    int64_t period_type[2], period, time_nanos, duration_nanos, default_type;
    int64_t *comments;
    size_t ncomments;
};

/* Read the profile in buf (gzip-compressed, or not): a decoded profile, or NULL with a
 * one-line reason in err. */
struct pprof_data *pprof_read(const uint8_t *buf, size_t len, char *err, size_t errlen);
/* Read the profile in file path (as pprof_read; err starts with the path). */
struct pprof_data *pprof_read_file(const char *path, char *err, size_t errlen);
void pprof_data_free(struct pprof_data *d);
/* The location id's entry, or NULL. */
const struct pprof_location_data *pprof_data_location(const struct pprof_data *d, uint64_t id);
/* The function id's entry, or NULL. */
const struct pprof_function_data *pprof_data_function(const struct pprof_data *d, uint64_t id);
/* The mapping id's entry, or NULL. */
const struct pprof_mapping_data *pprof_data_mapping(const struct pprof_data *d, uint64_t id);

#endif
